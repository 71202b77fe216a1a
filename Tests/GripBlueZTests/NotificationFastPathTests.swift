import Synchronization
import Testing

@_spi(Benchmarks) import GripBlueZ

@Suite("Notification fast path (no bus)")
struct NotificationFastPathTests {
    @Test("a PropertiesChanged Value signal reaches the handler with exactly its bytes, for 0 to 512 bytes", arguments: [0, 1, 10, 512])
    func deliversExactBytes(length: Int) throws {
        let value = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }
        let received = Mutex<[[UInt8]]>([])
        let probe = try #require(NotificationFastPathProbe(
            path: "/org/bluez/hci0/dev_F0_0D_CA_FE_12_34/service000b/char000c", value: value
        ) { bytes, hostMicros in
            received.withLock { $0.append(Array(bytes)) }
            #expect(hostMicros > 0)
        })
        #expect(probe.deliver())
        #expect(probe.deliver())
        #expect(received.withLock { $0 } == [value, value])
    }
}
