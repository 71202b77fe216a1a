import Foundation

/// The one encoder for the JSON documents griptrack writes for people and programs: the CLI's `--json` and the web
/// app's API documents that mirror it. One encoder, so `GET /api/recordings` is byte for byte what
/// `griptrack list --json` prints for the same rows (docs/web.md, "API").
package enum JSONOutput {
    /// Sorted keys, snake_case keys, ISO 8601 dates (whole seconds, UTC), pretty-printed, slashes unescaped.
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// `value` as the CLI prints it: the document and a final newline.
    /// - Throws: `EncodingError` for a value JSON cannot hold (a non-finite number).
    package static func document(_ value: some Encodable) throws -> Data {
        var data = try encoder().encode(value)
        data.append(0x0A)
        return data
    }

    /// A float32 force widened to Double, as the Double of the float's shortest decimal: JSON then shows the
    /// device's 48.42075, not 48.42074966430664.
    package static func float32Decimal(_ value: Double) -> Double { Double(Float(value).description) ?? value }
}
