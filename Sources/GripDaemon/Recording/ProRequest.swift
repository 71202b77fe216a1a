import Foundation
import GripAnalysis
import GripStore
import GripStream

/// The PRO request's action.
enum ProRequest: Sendable, Equatable {
    case status
    /// A manual grant; `expires` nil = never.
    case grant(note: String?, expires: Date?)
    case revoke
}
