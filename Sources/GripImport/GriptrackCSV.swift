import GripAnalysis

/// griptrack's own CSV export, the writing half of ``TindeqExport/parse(_:fileName:)``.
///
/// The layout follows the app's exports closely enough for tools that read them (header fields, an empty line,
/// `time,weight` rows, CRLF), with one `field,value` line per field, and it is written so that importing it gives back
/// the very samples it was made from: time to the microsecond (exact integer arithmetic, never a `Double`), force as
/// the shortest decimal that reads back to the same `Float` (Swift's description of a `Float`), and the time of the
/// first sample in `time origin (us)`.
package enum GriptrackCSV {
    /// The header field that holds the first sample's time on the recording's timeline (µs).
    package static let originField = "time origin (us)"
    /// The header field that lists where the recording's stream was interrupted (a link drop): the times (µs, the
    /// recording's timeline, separated by spaces) after which the segmenter was told of an interruption, so that an
    /// import cuts the same efforts open at the same places.
    package static let linkDropsField = "link drops (us)"
    /// The hand the user set (`left`, `right`), empty when none.
    package static let handField = "hand"
    /// The label the user set, empty when none.
    package static let labelField = "label"
    /// Who pulled and how, and the protocol run (`griptrack label`), each empty when none: an import of the export
    /// keeps what the recording said about itself. The units are in the names, as in the app's `intervaltime (ms)`;
    /// `body weight (kg)` is not the app's `body weight` figure, which an import keeps beside its own.
    package static let athleteField = "athlete"
    package static let gripField = "grip"
    package static let edgeField = "edge (mm)"
    package static let bodyWeightField = "body weight (kg)"
    package static let protocolField = "protocol"
    package static let protocolMaxField = "protocol max (kg)"

    /// Writes a recording as CSV.
    ///
    /// - Parameters:
    ///   - fields: Header fields in order (`date` first, as `YYYY-MM-DD HH:MM:SS`); ``originField`` is added.
    ///   - samples: The samples in time order (stream µs, kg as stored).
    /// - Returns: The file's text, CRLF line endings.
    package static func write(fields: [ExportField], samples: [ForceSample]) -> String {
        let origin = samples.first?.micros ?? 0
        var lines = fields.map { "\(escape($0.name)),\(escape($0.value))" }
        lines.append("\(originField),\(origin)")
        lines.append("")
        lines.append("time,weight")
        lines.reserveCapacity(lines.count + samples.count)
        for sample in samples {
            lines.append(seconds(sample.micros - origin) + "," + "\(sample.kilograms)")
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// µs as seconds with six decimals, exactly (`12.345678`).
    static func seconds(_ micros: Int64) -> String {
        let magnitude = micros.magnitude
        let fraction = String(magnitude % 1_000_000)
        let padded = String(repeating: "0", count: 6 - fraction.count) + fraction
        return (micros < 0 ? "-" : "") + "\(magnitude / 1_000_000).\(padded)"
    }

    /// A field quoted when it holds a comma, a quote or a line break.
    static func escape(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return text }
        // A line break would split the line; the reader takes one line per field, so it becomes a space.
        let flat = String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
        return "\"" + flat.replacing("\"", with: "\"\"") + "\""
    }
}
