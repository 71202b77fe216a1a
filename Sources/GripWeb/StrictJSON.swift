/// Checks that bytes are one JSON value exactly as RFC 8259 writes it, before `JSONDecoder` reads them.
///
/// Written by hand because no parser here is strict: Foundation's `JSONDecoder` and `JSONSerialization` both take a
/// trailing comma (`{"save":true,}`) and let the first of two equal keys win, so two clients could read one body two
/// ways. This only walks the syntax (no values are built): objects and arrays nested at most ``maxDepth`` deep,
/// strings with valid escapes and no raw control characters, numbers in JSON's grammar, no duplicate key within an
/// object, nothing after the value but whitespace.
struct StrictJSON {
    /// Deeper nesting is refused (a request body of the web app is one flat object).
    static let maxDepth = 16

    private let bytes: [UInt8]
    private var index = 0

    /// Whether `bytes` is one strict JSON value.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        var checker = StrictJSON(bytes: bytes)
        guard checker.value(depth: 0) else { return false }
        checker.skipWhitespace()
        return checker.index == bytes.count
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ literal: StaticString) -> Bool {
        let text = literal.withUTF8Buffer { Array($0) }
        guard index + text.count <= bytes.count, Array(bytes[index..<index + text.count]) == text else { return false }
        index += text.count
        return true
    }

    private mutating func value(depth: Int) -> Bool {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{")?: return object(depth: depth + 1)
        case UInt8(ascii: "[")?: return array(depth: depth + 1)
        case UInt8(ascii: "\"")?: return string() != nil
        case UInt8(ascii: "t")?: return expect("true")
        case UInt8(ascii: "f")?: return expect("false")
        case UInt8(ascii: "n")?: return expect("null")
        default: return number()
        }
    }

    private mutating func object(depth: Int) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return true
        }
        var keys: Set<[UInt8]> = []
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let key = string(), keys.insert(key).inserted else { return false }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return false }
            index += 1
            guard value(depth: depth) else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "}")?:
                index += 1
                return true
            default: return false
            }
        }
    }

    private mutating func array(depth: Int) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return true
        }
        while true {
            guard value(depth: depth) else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "]")?:
                index += 1
                return true
            default: return false
            }
        }
    }

    /// A string's raw bytes between its quotes (escapes as written: two keys are equal only as written), or nil.
    private mutating func string() -> [UInt8]? {
        index += 1
        let start = index
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                defer { index += 1 }
                return Array(bytes[start..<index])
            case UInt8(ascii: "\\"):
                index += 1
                guard let escaped = current else { return nil }
                if escaped == UInt8(ascii: "u") {
                    guard index + 4 < bytes.count, bytes[index + 1...index + 4].allSatisfy(\.isHexDigit) else { return nil }
                    index += 5
                } else {
                    guard Array("\"\\/bfnrt".utf8).contains(escaped) else { return nil }
                    index += 1
                }
            case 0x00..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    private mutating func number() -> Bool {
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, first.isDigit else { return false }
        index += 1
        if first != UInt8(ascii: "0") { while current?.isDigit == true { index += 1 } }
        if current == UInt8(ascii: ".") {
            index += 1
            guard current?.isDigit == true else { return false }
            while current?.isDigit == true { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard current?.isDigit == true else { return false }
            while current?.isDigit == true { index += 1 }
        }
        return true
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    fileprivate var isHexDigit: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f")) || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
