import Testing

@testable import GripDaemon

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

    @Test("strings are escaped where JSON needs it and copied whole where it does not")
    func stringEscapes() {
        var line = JSONLine(class: "RECORDER")
        line.add("label", "warm-up é")
        line.add("note", "a\"b\\c\nd\t\u{01}")
        #expect(line.line == #"{"class":"RECORDER","label":"warm-up é","note":"a\"b\\c\nd\t\u0001"}"# + "\n")
    }
}
