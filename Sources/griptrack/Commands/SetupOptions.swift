import ArgumentParser
import GripAnalysis
import GripStore

/// Who pulled and how, as `griptrack record` and `griptrack label` take it.
struct SetupOptions: ParsableArguments {
    @Option(help: "The hand: left, right or both.")
    var hand: Hand?

    @Option(help: ArgumentHelp("The grip, e.g. \"half crimp\", open, pinch (one line).", valueName: "grip"))
    var grip: String?

    @Option(name: .customLong("edge-mm"), parsing: .unconditional, help: ArgumentHelp("The edge depth in millimetres (1–100).", valueName: "mm"))
    var edgeMillimetres: Double?

    @Option(help: ArgumentHelp(
        "Who pulled: a name, for a station several people share (one line).", valueName: "name"))
    var athlete: String?

    @Option(name: .customLong("body-weight-kg"), parsing: .unconditional, help: ArgumentHelp(
        "The athlete's body weight in kg (15–250): figures as % of body weight need it.", valueName: "kg"))
    var bodyWeightKilograms: Double?

    @Option(help: ArgumentHelp("A label stored with the recording (at most 200 bytes).", valueName: "text"))
    var label: String?

    /// The change these options ask for.
    var description: RecordingDescription {
        RecordingDescription(
            hand: hand, label: label, athlete: athlete, grip: grip, edgeMillimetres: edgeMillimetres,
            bodyWeightKilograms: bodyWeightKilograms)
    }

    /// - Parameter requireOne: `label` changes something or is a mistake; `record` may say nothing.
    func validate(requireOne: Bool) throws {
        if requireOne && description.isEmpty {
            throw ValidationError(
                "Nothing to change: give at least one of --hand, --grip, --edge-mm, --athlete, --body-weight-kg, --label, "
                    + "--protocol, --max-kg.")
        }
        if let problem = description.problem {
            // The problem names the field (`edge depth 0.5 mm is …`); the user typed the option.
            let options = [("label", "--label"), ("athlete", "--athlete"), ("grip", "--grip"),
                           ("edge depth", "--edge-mm"), ("body weight", "--body-weight-kg")]
            guard let (field, option) = options.first(where: { problem.hasPrefix($0.0 + " ") }) else {
                throw ValidationError(problem + ".")
            }
            throw ValidationError(option + problem.dropFirst(field.count) + ".")
        }
    }
}

/// `--max-kg`, the athlete's max a protocol's band is a percentage of: one check for `record`, `show` and `label`,
/// the range the store keeps (`RecordingDescription.protocolMaxRange`), said before anything runs. Parsed
/// unconditionally, so `--max-kg -20` reaches this check instead of reading as a missing value and an option `-2`.
enum MaxKgOption {
    static func check(_ value: Double?) throws {
        guard let value, !RecordingDescription.protocolMaxRange.contains(value) else { return }
        let range = RecordingDescription.protocolMaxRange
        throw ValidationError(
            "--max-kg \(Format.kg(value)) is outside \(Int(range.lowerBound))–\(Int(range.upperBound)) kg: "
                + "give the athlete's max for this hand and grip, e.g. 42.5.")
    }
}
