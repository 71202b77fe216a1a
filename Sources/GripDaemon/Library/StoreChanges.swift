import Foundation
import GripEntitlements
import GripProtocol
import GripStore

/// App Store signed data verified by the daemon (PRO import), ready for the recorder to store.
struct ImportedSignedData: Sendable {
    var verified: VerifiedSignedData
    /// The compact JWS as received, stored with what it proves.
    var jws: String
}

/// Applies the store changes of protocol 1.2 (DELETE, PRO import). Runs on the recorder thread, the only writer
/// of the daemon's database; the socket thread has already checked that the peer may ask.
enum StoreChanges {
    /// Applies `change` and returns the reply line (or ERROR).
    /// - Parameters:
    ///   - openRecording: the recording the recorder is writing now, which cannot be deleted.
    ///   - actor: who asked, for the audit log (`uid 1000 via griptrackd`).
    static func apply(
        _ change: StoreChange, store: RecordingStore, access: AccessContext, openRecording: RecordingID?,
        actor: String, now: Date
    ) -> String {
        switch change {
        case .delete(let id):
            if id == openRecording {
                return RequestProblem(code: .busy, message: "recording \(id) is being recorded; stop it first (`griptrack record` Ctrl-C, or STOP)").line
            }
            do {
                guard try store.delete(id) else {
                    return RequestProblem(code: .notFound, message: GripStoreError.recordingNotFound(id).description).line
                }
            } catch {
                return RequestProblem(code: .store, message: error.description).line
            }
            return ProtocolMessage.deleted(id, status: try? store.accessStatus(access, now: now))
        case .describe(let id, let change):
            do {
                guard try store.recording(id) != nil else {
                    return RequestProblem(code: .notFound, message: GripStoreError.recordingNotFound(id).description).line
                }
                return ProtocolMessage.described(try store.describeRecording(id, change))
            } catch {
                return RequestProblem(code: .store, message: error.description).line
            }
        case .importSigned(let data):
            do {
                let result = try store.importVerified(data.verified, jws: data.jws, context: access, actor: actor, now: now)
                return ProtocolMessage.imported(result)
            } catch {
                return RequestProblem(code: .store, message: error.description).line
            }
        }
    }
}

extension ProtocolMessage {
    /// The reply to `PRO` import: what each piece of signed data did, and access before and after.
    static func imported(_ result: SignedDataImport) -> String {
        DaemonMessage.ImportReply(
            pro: result.after.isPro, reason: result.after.reason, before: result.before.reason,
            events: result.events.map { event in
                DaemonMessage.ImportReply.Event(
                    kind: event.kind.rawValue, originalTransactionId: event.originalTransactionId,
                    disposition: disposition(event.disposition))
            }
        ).line
    }

    /// `applied`, `replay_ignored`, `duplicate_notification`, `too_old_to_grant` or `ignored: <why>`.
    static func disposition(_ disposition: ApplyEvent.Disposition) -> String {
        switch disposition {
        case .applied: "applied"
        case .replayIgnored: "replay_ignored"
        case .duplicateNotification: "duplicate_notification"
        case .tooOldToGrant: "too_old_to_grant"
        case .ignored(let reason): "ignored: \(reason)"
        }
    }
}
