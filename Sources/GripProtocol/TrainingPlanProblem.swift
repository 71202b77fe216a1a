/// Why a protocol text cannot be planned: the engine's words (`column 14: "7:x" is not work:rest; …`).
package struct TrainingPlanProblem: Error, Equatable, Sendable {
    package var message: String
}
