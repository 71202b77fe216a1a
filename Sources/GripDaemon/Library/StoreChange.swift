import Foundation
import GripAnalysis
import GripProtocol
import GripStore

/// A change to the daemon's recordings or entitlement state (protocol 1.2), applied on the recorder thread, the
/// store's only writer.
enum StoreChange: Sendable {
    /// DELETE: a recording with its efforts and samples.
    case delete(RecordingID)
    /// PRO import: App Store signed data the daemon has verified itself.
    case importSigned(ImportedSignedData)
    /// LABEL (1.6): hand, label, athlete, grip, edge depth, body weight.
    case describe(RecordingID, RecordingDescription)
}
