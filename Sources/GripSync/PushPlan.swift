import Foundation
import GripStore

/// One outbox batch turned into what the server must apply, in outbox order: recordings to upsert (with the chunks
/// the batch names), tombstones, and subscription events. Built from the store's current state, so re-planning a
/// batch that failed gives the same (or a newer) picture, never an older one.
struct PushPlan: Sendable {
    enum Item: Sendable {
        /// Upsert this recording and its efforts, then insert these chunks.
        case recording(SyncRecording, chunks: [RawSampleChunk], updatedAt: Date)
        /// The recording was deleted on this device.
        case tombstone(UUID, deletedAt: Date)
        /// The entitlement state changed.
        case entitlement(EntitlementChange, at: Date)
    }

    var items: [Item]
    /// The highest outbox id in the batch: acknowledged once the server commits.
    var lastID: Int64
    var rows: Int

    /// Builds the plan for `entries` (non-empty, in id order).
    ///
    /// - Throws: ``SyncError/store(_:)``.
    init(_ entries: [OutboxEntry], store: RecordingStore) throws(SyncError) {
        precondition(!entries.isEmpty, "a push plan needs outbox rows")
        lastID = entries[entries.count - 1].id
        rows = entries.count
        // Group each recording's rows at its first appearance: one upsert per recording per batch.
        var order: [UUID] = []
        var ranges: [UUID: [ClosedRange<Int>]] = [:]
        var latest: [UUID: Date] = [:]
        var deleted: [UUID: Date] = [:]
        var entitlements: [(position: Int, change: EntitlementChange, at: Date)] = []
        for entry in entries {
            switch entry.kind {
            case .entitlement:
                // A payload that no longer decodes (hand-edited file) is skipped: it is a mirror, not a decision.
                guard let payload = entry.payload, let change = Self.decode(payload) else { continue }
                entitlements.append((order.count, change, entry.at))
            case .recording, .chunks, .deleted:
                guard let uuid = entry.recordingUUID else { continue }
                if latest[uuid] == nil { order.append(uuid) }
                latest[uuid] = max(latest[uuid] ?? entry.at, entry.at)
                if let sequences = entry.sequences { ranges[uuid, default: []].append(sequences) }
                if entry.kind == .deleted { deleted[uuid] = entry.at }
            }
        }
        var items: [Item] = []
        var nextEntitlement = 0
        for (position, uuid) in order.enumerated() {
            while nextEntitlement < entitlements.count, entitlements[nextEntitlement].position <= position {
                items.append(.entitlement(entitlements[nextEntitlement].change, at: entitlements[nextEntitlement].at))
                nextEntitlement += 1
            }
            if let at = deleted[uuid] {
                items.append(.tombstone(uuid, deletedAt: at))
                continue
            }
            do throws(GripStoreError) {
                // Gone since: deleted after these rows were written; its tombstone is in a later batch.
                guard let recording = try store.syncRecording(uuid: uuid) else { continue }
                var chunks: [RawSampleChunk] = []
                for range in Self.blocks(covering: ranges[uuid] ?? [], chunkCount: recording.chunkCount) {
                    chunks += try store.rawChunks(of: uuid, sequences: range)
                }
                items.append(.recording(recording, chunks: chunks, updatedAt: latest[uuid] ?? Date()))
            } catch {
                throw .store(error)
            }
        }
        for rest in entitlements[nextEntitlement...] { items.append(.entitlement(rest.change, at: rest.at)) }
        self.items = items
    }

    /// The server rows (blocks of ``ServerWrites/chunksPerBlock`` chunks) that hold the named chunks, as ranges of
    /// chunk sequences within the recording's `chunkCount`, joined and in order. A block is written whole, so a
    /// chunk is sent with the rest of its block. The block the count ends in is always among them: when the
    /// device trimmed its tail, that block is the one that still holds chunks the device no longer has.
    static func blocks(covering ranges: [ClosedRange<Int>], chunkCount: Int) -> [ClosedRange<Int>] {
        guard chunkCount > 0 else { return [] }
        let size = ServerWrites.chunksPerBlock
        var aligned: [ClosedRange<Int>] = []
        for range in ranges where range.lowerBound < chunkCount {
            let lower = max(0, range.lowerBound) / size * size
            let upper = min(range.upperBound / size * size + size, chunkCount) - 1
            aligned.append(lower...upper)
        }
        aligned.append((chunkCount - 1) / size * size...chunkCount - 1)
        return merged(aligned)
    }

    /// Overlapping or adjacent ranges joined, in order.
    static func merged(_ ranges: [ClosedRange<Int>]) -> [ClosedRange<Int>] {
        var result: [ClosedRange<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound + 1 {
                result[result.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    private static func decode(_ payload: String) -> EntitlementChange? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(EntitlementChange.self, from: Data(payload.utf8))
    }
}
