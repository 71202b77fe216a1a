/// What a recording's label may be: one line of text of at most ``byteLimit`` UTF-8 bytes.
///
/// The one place the rule lives, for `griptrack record --label` and the socket's RECORD alike. Control characters
/// are refused rather than stored: a NUL cut the label short on its way through C strings (`a\0b` was kept as `a`),
/// and line breaks or escape sequences would garble every list and terminal that shows it. Bidirectional controls
/// (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) are refused too: one in a label reverses or reorders the text after
/// it wherever the label is shown, so what a screen shows would not be what is stored.
public enum RecordingLabel {
    /// The longest label, in UTF-8 bytes.
    public static let byteLimit = 200

    /// Why `label` cannot be stored, in words that complete "label …", or nil when it can.
    ///
    /// - Parameter label: The label as given.
    /// - Returns: e.g. `is 240 bytes; at most 200 are allowed`.
    public static func problem(_ label: String) -> String? {
        if label.utf8.count > byteLimit {
            return "is \(label.utf8.count) bytes; at most \(byteLimit) are allowed"
        }
        let scalars = label.unicodeScalars.enumerated()
        if let (offset, scalar) = scalars.first(where: { $0.element.properties.generalCategory == .control }) {
            let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
            return "has a control character (\(code)) at character \(offset + 1); a label is one line of text"
        }
        if let (offset, scalar) = scalars.first(where: { isBidiControl($0.element) }) {
            let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
            return "has a bidirectional control (\(code)) at character \(offset + 1); write the text in its own order"
        }
        return nil
    }
}

/// A scalar that changes the display order of the text around it.
private func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: true
    default: false
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
