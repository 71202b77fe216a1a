/// The fields of griptrackd's protocol lines (docs/protocol.md) the bridge reads; everything else is ignored, as
/// the protocol asks of clients.
struct DaemonLine: Decodable, Sendable {
    var `class`: String
    var event: String?
    var start: Double?
    var end: Double?
    var peakKg: Double?
    var meanKg: Double?
    var timeToPeak: Double?
    var rfdKgS: Double?
    var impulseKgS: Double?
    var open: Bool?
    var state: String?
    var batteryMv: Int?
    var id: Int?
    var reason: String?
    var message: String?
    var device: Device?
    var recorder: Recorder?
    /// STATUS's `access` object; RECORD's reply has a string of that name, which must not fail the line.
    var access: Lenient<Access>?

    struct Device: Decodable, Sendable {
        var state: String?
        var batteryMv: Int?
    }

    struct Recorder: Decodable, Sendable {
        var state: String?
    }

    /// A field whose type differs between classes: nil where it is not `Value`.
    struct Lenient<Value: Decodable & Sendable>: Decodable, Sendable {
        var value: Value?

        init(from decoder: any Decoder) throws {
            value = try? Value(from: decoder)
        }
    }

    struct Access: Decodable, Sendable {
        var pro: Bool
        var reason: String
        var stored: Int
        var limit: Int
    }

    /// The newest force of a SAMPLES line, read from its text without decoding the line: batched SAMPLES lines
    /// come 25 times a second and only one value in 12 of them is published. The daemon writes `"kg":[` with the
    /// values as plain numbers (`SamplesLineWriter`).
    static func lastForce(inSamplesLine line: Substring) -> Float? {
        guard let open = line.range(of: "\"kg\":[")?.upperBound,
            let close = line[open...].firstIndex(of: "]"), close > open
        else { return nil }
        let values = line[open..<close]
        let start = values.lastIndex(of: ",").map { values.index(after: $0) } ?? values.startIndex
        return Float(values[start...])
    }
}
