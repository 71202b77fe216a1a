import GripProtocol
import Testing

@testable import GripDaemon

extension ProtocolMessage {
    /// One SAMPLES line as a string, through the consumer's writer.
    static func samples(micros: ArraySlice<Int64>, kilograms: ArraySlice<Float>) -> String {
        var line: [UInt8] = []
        let count = writeSamples(micros: micros, kilograms: kilograms, into: &line)
        return String(decoding: line[..<count], as: UTF8.self)
    }
}

/// The exact text of protocol lines that are built by hand (docs/protocol.md): clients parse them as JSON.
@Suite("Protocol lines")
struct ProtocolLineTests {
    @Test("a SAMPLES line: seconds with microsecond precision, forces in their shortest form, nothing for no samples")
    func samplesLine() {
        let line = ProtocolMessage.samples(
            micros: [1_000_000, 1_012_500, 987_654_321][...], kilograms: [20.5, 0.1, -3][...])
        #expect(line == #"{"class":"SAMPLES","t":[1.0,1.0125,987.654321],"kg":[20.5,0.1,-3.0]}"# + "\n")
        let empty = ProtocolMessage.samples(micros: [][...], kilograms: [][...])
        #expect(empty == #"{"class":"SAMPLES","t":[],"kg":[]}"# + "\n")
    }

    @Test("seconds written by integer arithmetic read exactly as Double.description prints them")
    func secondsMatchDoubleDescription() {
        var generator = SystemRandomNumberGenerator()
        var micros: [Int64] = [
            -1, 0, 1, 99, 100, 101, 12_500, 99_999, 100_000, 1_000_000, 1_000_001, 86_400_000_000,
            999_999_999_999_999, 1_000_000_000_000_000, .max, .min,
        ]
        // A day of an 80 Hz stream, and random times across the hand-written range and far beyond it.
        micros += stride(from: 0, to: 86_400_000_000, by: 12_500).lazy.filter { $0 % 1_000_003 < 12_500 }
        micros += (0..<20_000).map { _ in Int64.random(in: 0..<1_000_000_000_000_000, using: &generator) }
        micros += (0..<2_000).map { _ in Int64.random(in: .min ... .max, using: &generator) }
        for value in micros {
            let line = ProtocolMessage.samples(micros: [value][...], kilograms: [][...])
            let expected = #"{"class":"SAMPLES","t":["# + ProtocolMessage.seconds(value).description + #"],"kg":[]}"# + "\n"
            #expect(line == expected, "micros \(value)")
        }
    }

    @Test("the longest numbers fit the line's reserved storage")
    func longestNumbersFit() {
        let micros: [Int64] = Array(repeating: .min, count: 64)
        let kilograms: [Float] = Array(repeating: -.leastNormalMagnitude, count: 64)
        let line = ProtocolMessage.samples(micros: micros[...], kilograms: kilograms[...])
        let t = Array(repeating: ProtocolMessage.seconds(.min).description, count: 64).joined(separator: ",")
        let kg = Array(repeating: (-Float.leastNormalMagnitude).description, count: 64).joined(separator: ",")
        #expect(line == #"{"class":"SAMPLES","t":["# + t + #"],"kg":["# + kg + "]}\n")
        #expect(line.utf8.count <= SamplesLineWriter.capacity(samples: 64))
    }

    @Test("strings are escaped where JSON needs it and copied whole where it does not")
    func stringEscapes() {
        var line = JSONLine(class: "RECORDER")
        line.add("label", "warm-up é")
        line.add("note", "a\"b\\c\nd\t\u{01}")
        #expect(line.line == #"{"class":"RECORDER","label":"warm-up é","note":"a\"b\\c\nd\t\u0001"}"# + "\n")
    }
}
