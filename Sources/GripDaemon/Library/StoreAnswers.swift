import Foundation
import GripEntitlements
import GripProtocol
import GripStore

/// Answers store queries (protocol 1.2) under the daemon's plan: the free plan's history shows the newest
/// `limit` recordings, so LIST, SHOW, READ and STATS see only those; HISTORY needs Pro. A hidden recording is kept,
/// never deleted, and shows again with Pro.
///
/// Pure reads of a `RecordingStore` (a WAL `DatabasePool`: readers never wait for the recorder's commits).
struct StoreAnswers {
    /// The daemon's store.
    let store: RecordingStore
    /// The daemon's entitlement context.
    let access: AccessContext
    /// Chunks per READ page (each chunk holds at most half a second of samples).
    var chunksPerPage = 16

    /// The reply line for `query`, or the ERROR line.
    func answer(_ query: StoreQuery, now: Date) -> String {
        do throws(RequestProblem) {
            return try reply(query, now: now)
        } catch {
            return error.line
        }
    }

    private func reply(_ query: StoreQuery, now: Date) throws(RequestProblem) -> String {
        let status = try call { () throws(GripStoreError) in try store.accessStatus(access, now: now) }
        let shown = status.access.isPro ? nil : status.freeLimit
        switch query {
        case .plan:
            // The audit log says whether a sync brought an App Store Pro (docs/account.md, "Pro follows the account").
            let audit = try call { () throws(GripStoreError) in try store.auditLog(limit: 50) }
            return ProtocolMessage.plan(status, provenance: ProProvenance.line(source: status.access.source.rawValue, audit: audit))
        case .list(let limit):
            let cap = [limit, shown].compactMap { $0 }.min()
            let list = try call { () throws(GripStoreError) in try store.listRecordings(limit: cap) }
            return ProtocolMessage.list(list, status: status)
        case .show(let id):
            let row = try visibleRow(id, shown: shown)
            let efforts = try call { () throws(GripStoreError) in try store.efforts(of: id) }
            let imported = try call { () throws(GripStoreError) in try store.importComparison(of: row, efforts: efforts) }
            return ProtocolMessage.show(row, efforts: efforts, imported: imported)
        case .read(let id, let sequence):
            _ = try visibleRow(id, shown: shown)
            let page = try call { () throws(GripStoreError) in
                try store.samplePage(of: id, fromSequence: sequence, maxChunks: chunksPerPage)
            }
            return ProtocolMessage.read(id, page: page)
        case .stats:
            let stats = try call { () throws(GripStoreError) in try store.statistics(limit: shown) }
            return ProtocolMessage.stats(stats, status: status)
        case .history:
            guard status.access.isPro else {
                throw RequestProblem(code: .proRequired, message: "trends and comparisons need Pro (\(status.access.reason))")
            }
            let recordings = try call { () throws(GripStoreError) in try store.analysedRecordings(limit: nil) }
            return ProtocolMessage.history(recordings)
        }
    }

    /// The row of a recording the plan shows; not found and hidden are refusals.
    private func visibleRow(_ id: RecordingID, shown: Int?) throws(RequestProblem) -> RecordingRow {
        guard let row = try call({ () throws(GripStoreError) in try store.recording(id) }) else {
            throw RequestProblem(code: .notFound, message: GripStoreError.recordingNotFound(id).description)
        }
        if let shown {
            let visible = try call { () throws(GripStoreError) in try store.listRecordings(limit: shown) }
            guard visible.visible.contains(where: { $0.id == id }) else {
                throw RequestProblem(
                    code: .proRequired,
                    message: "Recording \(id) is hidden: the free plan shows the last \(shown) recordings. It is kept, "
                        + "not deleted; with Pro it shows again.")
            }
        }
        return row
    }

    private func call<T>(_ body: () throws(GripStoreError) -> T) throws(RequestProblem) -> T {
        do {
            return try body()
        } catch .recordingNotFound(let id) {
            throw RequestProblem(code: .notFound, message: GripStoreError.recordingNotFound(id).description)
        } catch {
            throw RequestProblem(code: .store, message: error.description)
        }
    }
}
