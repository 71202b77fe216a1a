import Foundation
import GripAnalysis
import GripProtocol
import GripStore

/// A query and who asked.
struct StoreJob: Sendable {
    var client: ClientReference
    var query: StoreQuery
}
