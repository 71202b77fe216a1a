import Glibc
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

    @Test("a paced drain of an acquired socket hands over every datagram's exact bytes, in order, with the time it arrived")
    func drainKeepsArrivalTimes() throws {
        let received = Mutex<[(bytes: [UInt8], hostMicros: Int64)]>([])
        let probe = try #require(AcquiredDrainProbe { bytes, hostMicros in
            received.withLock { $0.append((Array(bytes), hostMicros)) }
        })
        let values: [[UInt8]] = [[0x01, 0x08, 1, 2, 3, 4, 5, 6, 7, 8], [], Array(repeating: 0xAB, count: 244)]
        var sentAt: [Int64] = []
        for value in values {
            sentAt.append(DeviceConnection.hostMicros())
            #expect(probe.send(value))
            usleep(20_000)
        }
        let drainedAt = DeviceConnection.hostMicros()
        // One drain reads them all, the empty notification too (the peer has not hung up, so it is not the end).
        #expect(probe.drain())
        let got = received.withLock { $0 }
        #expect(got.map(\.bytes) == values)
        for (index, arrival) in got.map(\.hostMicros).enumerated() {
            // Stamped by the kernel as it was sent (give or take the clock conversion), not when it was drained,
            // which was 20–60 ms later.
            #expect(abs(arrival - sentAt[index]) < 5_000, "value \(index) arrived \(arrival - sentAt[index]) µs from its send")
            #expect(drainedAt - arrival > 15_000)
        }
        #expect(probe.drain())
        #expect(received.withLock { $0.count } == values.count, "an empty socket delivers nothing")
    }

    @Test("a drain reads a queue longer than one call's batch, in order; after a hang-up what was queued, then the end")
    func drainReadsLongQueuesAndTheEnd() throws {
        let received = Mutex<[[UInt8]]>([])
        let probe = try #require(AcquiredDrainProbe { bytes, _ in received.withLock { $0.append(Array(bytes)) } })
        // 2.5 batches: the last call returns fewer than it asked for, which ends the drain.
        let values = (0..<40).map { [UInt8($0), 0x01, 0x08] }
        for value in values { #expect(probe.send(value)) }
        #expect(probe.drain())
        #expect(received.withLock { $0 } == values)
        #expect(probe.send([0xFF]))
        probe.hangUp()
        #expect(!probe.drain(), "the end of the stream was not seen")
        #expect(received.withLock { $0.last } == [0xFF], "what was queued before the hang-up was lost")
    }
}
