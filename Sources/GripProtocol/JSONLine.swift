/// Builds one protocol line: a flat JSON object, fields in the order written, ending in "\n".
///
/// Hand-written rather than `JSONEncoder` so field order is stable (docs and tests read it) and no value is ever
/// `null`: an absent value is an absent field (docs/protocol.md, global rules).
package struct JSONLine {
    private var text = "{"
    private var isEmpty = true

    /// A nested object (no "class").
    package init() {}

    /// A protocol line of the given class; "class" is always the first field.
    package init(class name: String) {
        add("class", name)
    }

    package mutating func add(_ key: String, _ value: String) {
        appendKey(key)
        Self.appendString(value, to: &text)
    }

    package mutating func add(_ key: String, _ value: Int) {
        appendKey(key)
        text += String(value)
    }

    package mutating func add(_ key: String, _ value: Bool) {
        appendKey(key)
        text += value ? "true" : "false"
    }

    /// Adds a finite number in its shortest round-tripping form; a non-finite one is left out (never null).
    package mutating func add(_ key: String, _ value: Double) {
        guard value.isFinite else { return }
        appendKey(key)
        text += value.description
    }

    /// Adds a Float in its shortest round-tripping form (22.393, not 22.392999649047852).
    package mutating func add(_ key: String, _ value: Float) {
        guard value.isFinite else { return }
        appendKey(key)
        text += value.description
    }

    /// Adds an already-encoded JSON value (array or object).
    package mutating func addRaw(_ key: String, _ json: String) {
        appendKey(key)
        text += json
    }

    /// The finished line, newline included.
    package var line: String { text + "}\n" }

    /// The finished object without the newline (to nest it).
    package var object: String { text + "}" }

    private mutating func appendKey(_ key: String) {
        if !isEmpty { text += "," }
        isEmpty = false
        Self.appendString(key, to: &text)
        text += ":"
    }

    package static func appendString(_ value: String, to text: inout String) {
        text += "\""
        // Most strings (every key, class and event name) need no escape: append them whole.
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            text += value
            text += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
