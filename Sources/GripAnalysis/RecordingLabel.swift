/// What a recording's label may be: one line of text of at most ``byteLimit`` UTF-8 bytes.
///
/// The one place the rule lives, for `griptrack record --label` and the socket's RECORD alike. Control characters
/// are refused rather than stored: a NUL cut the label short on its way through C strings (`a\0b` was kept as `a`),
/// and line breaks or escape sequences would garble every list and terminal that shows it.
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
        return nil
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
