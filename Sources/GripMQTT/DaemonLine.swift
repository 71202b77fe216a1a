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

    /// The newest force of a SAMPLES line, read from its bytes without decoding the line: batched SAMPLES lines
    /// come 25 times a second and only one value in 12 of them is published. The daemon writes `kg` last, its values
    /// as plain numbers (`SamplesLineWriter`), so the newest is between the last `,` or `[` and the last `]`.
    static func lastForce(inSamplesLine line: some Collection<UInt8>) -> Float? {
        let bytes = Array(line.suffix(48))
        guard let close = bytes.lastIndex(of: UInt8(ascii: "]")),
            let open = bytes[..<close].lastIndex(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "[") }),
            open + 1 < close
        else { return nil }
        return Float(String(decoding: bytes[(open + 1)..<close], as: UTF8.self))
    }
}
