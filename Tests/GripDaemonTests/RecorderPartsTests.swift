import Foundation
import GripStore
import Testing

@testable import GripDaemon

@Suite("Recorder parts")
struct RecorderPartsTests {
    static func sample(_ micros: Int64) -> StoredSample { StoredSample(micros: micros, kilograms: Float(micros) / 1000) }

    @Test("the pre-roll window keeps the last retention span of stream time and hands out samples from a start")
    func windowKeepsRetentionSpan() {
        var window = SampleWindow(retentionMicros: 1_000, capacity: 100)
        for micros in stride(from: Int64(0), through: 5_000, by: 100) { window.append(Self.sample(micros)) }
        #expect(window.oldest?.micros == 4_000)
        #expect(window.count == 11)
        #expect(window.samples(from: 4_450).map(\.micros) == [4_500, 4_600, 4_700, 4_800, 4_900, 5_000])
        #expect(window.samples(from: 0).map(\.micros).first == 4_000)
        #expect(window.samples(from: 6_000).isEmpty)
    }

    @Test("the pre-roll window never holds more than its capacity, however dense the stream")
    func windowIsBoundedByCount() {
        var window = SampleWindow(retentionMicros: 1_000_000_000, capacity: 64)
        for micros in Int64(0)..<10_000 { window.append(Self.sample(micros)) }
        #expect(window.count == 64)
        #expect(window.oldest?.micros == Int64(9_936))
        #expect(Array(window.samples(from: 0)) == (10_000 - 64..<10_000).map { Self.sample(Int64($0)) })
        window.removeAll()
        #expect(window.count == 0)
        #expect(window.oldest == nil)
    }
}
