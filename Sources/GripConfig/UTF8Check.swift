/// Finds where a configuration file stops being UTF-8.
///
/// Foundation's `String(contentsOfFile:encoding:)` refuses such a file with "The file isn't in the correct format",
/// naming neither line nor byte, and TOML requires UTF-8 everywhere, comments included. So the bytes are checked
/// here first and the first bad one is named, the way a parse error names its line.
enum UTF8Check {
    /// Where the first invalid sequence starts.
    struct Position: Equatable {
        /// 1-based line.
        var line: Int
        /// 0-based byte offset in the file.
        var byte: Int
    }

    /// The position of the first byte that does not start a valid UTF-8 sequence, or nil when all of `bytes` is UTF-8.
    static func firstInvalid(in bytes: some Collection<UInt8>) -> Position? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var line = 1
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.count == 1 && encoded.first == UInt8(ascii: "\n") { line += 1 }
                offset += encoded.count
            case .error:
                return Position(line: line, byte: offset)
            case .emptyInput:
                return nil
            }
        }
    }
}
