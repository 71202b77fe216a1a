import GripTestSupport
import GripWire
import Testing

@Suite("btsnoop timestamps")
struct BtsnoopTimeTests {
    @Test("the reference check value 63785827940801683 is 2021-04-04 21:32:20.801683 UTC")
    func checkValue() throws {
        var writer = BtsnoopWriter(datalink: .hciUART)
        writer.appendRecord(flags: 0, payload: [], hostMicros: 0)
        var bytes = writer.bytes
        let timestamp: UInt64 = 63_785_827_940_801_683
        for index in 0..<8 { bytes[16 + 16 + index] = UInt8(truncatingIfNeeded: timestamp >> (56 - 8 * index)) }
        let outcome = feedWhole(bytes)
        #expect(outcome.error == nil)
        #expect(outcome.firstRecordMicros == 1_617_571_940_801_683)
        let days: Int64 = 18721  // 1970-01-01 … 2021-04-04
        let secondsOfDay: Int64 = 21 * 3600 + 32 * 60 + 20
        #expect(outcome.firstRecordMicros.map { $0 / 1_000_000 } == days * 86400 + secondsOfDay)
    }

    @Test("the writer stores host time so that the parser reads it back unchanged")
    func writerRoundTrip() {
        for micros: Int64 in [0, 1_617_571_940_801_683, -62_168_256_000_000_000, 4_102_444_800_000_000] {
            var writer = BtsnoopWriter(datalink: .linuxMonitor)
            writer.appendRecord(flags: 12, payload: [1, 2, 3], hostMicros: micros)
            #expect(feedWhole(writer.bytes).firstRecordMicros == micros)
        }
    }
}
