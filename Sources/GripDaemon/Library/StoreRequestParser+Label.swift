import GripStore

extension StoreRequestParser {
    /// The change LABEL (1.6) asks for: its hand, label, athlete, grip, edge_mm and body_weight_kg, checked as
    /// `griptrack label` checks them (``RecordingDescription/problem``).
    static func description(_ request: ClientRequest) -> Result<RecordingDescription, StoreProblem> {
        var change = RecordingDescription(
            label: request.label, athlete: request.athlete, grip: request.grip, edgeMillimetres: request.edgeMm,
            bodyWeightKilograms: request.bodyWeightKg)
        if let hand = request.hand {
            guard let value = Hand(rawValue: hand) else {
                return .failure(StoreProblem(
                    code: .invalid, message: "hand must be \"left\", \"right\" or \"both\", got \"\(hand)\""))
            }
            change.hand = value
        }
        if change.isEmpty {
            return .failure(StoreProblem(
                code: .invalid,
                message: "LABEL needs at least one of \"hand\", \"label\", \"athlete\", \"grip\", \"edge_mm\", "
                    + "\"body_weight_kg\""))
        }
        if let problem = change.problem { return .failure(StoreProblem(code: .invalid, message: problem)) }
        return .success(change)
    }
}
