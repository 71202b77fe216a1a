import GripProtocol

/// A JSON value written in the order it was built (Home Assistant does not care about order; people reading
/// `mosquitto_sub` output do). Numbers are kept as their text, so a float32 force goes out as its shortest exact
/// decimal, as in the socket protocol.
indirect enum JSONText: Sendable, Equatable {
    case string(String)
    case number(String)
    case bool(Bool)
    case array([JSONText])
    case object([(String, JSONText)])

    static func == (lhs: JSONText, rhs: JSONText) -> Bool { lhs.rendered == rhs.rendered }

    /// A force in kilograms: the float32's shortest decimal.
    static func kilograms(_ value: Float) -> JSONText { .number(value.description) }

    /// Seconds and other doubles, rounded to microseconds (the stream timeline's precision).
    static func micro(_ value: Double) -> JSONText {
        let rounded = (value * 1_000_000).rounded() / 1_000_000
        return .number(rounded == rounded.rounded() ? String(Int64(rounded)) : rounded.description)
    }

    static func integer(_ value: Int) -> JSONText { .number(String(value)) }

    var rendered: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case .string(let text): JSONLine.appendString(text, to: &out)
        case .number(let text): out += text
        case .bool(let value): out += value ? "true" : "false"
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(into: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out += "," }
                JSONLine.appendString(key, to: &out)
                out += ":"
                value.write(into: &out)
            }
            out += "}"
        }
    }
}
