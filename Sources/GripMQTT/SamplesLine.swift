/// The bridge's one look inside a SAMPLES line.
enum SamplesLine {
    /// The newest force of a SAMPLES line, read from its bytes without decoding the line: batched SAMPLES lines
    /// come 25 times a second and only one value in 12 of them is published. The daemon writes `kg` last, its values
    /// as plain numbers (`SamplesLineWriter`), so the newest is between the last `,` or `[` and the last `]`.
    static func lastForce(in line: some Collection<UInt8>) -> Float? {
        let bytes = Array(line.suffix(48))
        guard let close = bytes.lastIndex(of: UInt8(ascii: "]")),
            let open = bytes[..<close].lastIndex(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "[") }),
            open + 1 < close
        else { return nil }
        return Float(String(decoding: bytes[(open + 1)..<close], as: UTF8.self))
    }
}
