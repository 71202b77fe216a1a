import Foundation
import GripEntitlements
import GripStore

/// The recorder's two mailboxes as the socket thread sees them.
struct RecorderChannels: Sendable {
    /// Socket thread → recorder.
    let requests: Mailbox<RecorderRequest>
    /// Recorder → socket thread (replies to one client, reports to watchers).
    let replies: Mailbox<DaemonReply>
}

/// Why a RECORD, STOP or PRO line was not understood; `message` goes into the ERROR reply.
struct RequestProblem: Error, Equatable {
    var message: String
}

/// Checks the fields of RECORD, STOP and PRO (PROTOCOL 1.1) on the socket thread, before anything reaches the
/// recorder.
enum RecorderRequestParser {
    /// - Parameters:
    ///   - now: Only for PRO grant: an expiry must be later than this.
    /// - Returns: The request for the recorder, or the problem to report.
    static func parse(
        class name: String, hand: String?, label: String?, save: Bool?, action: String?, note: String?,
        expires: String?, client: ClientReference, now: Date
    ) -> Result<RecorderRequest, RequestProblem> {
        switch name {
        case "RECORD":
            var parsedHand: Hand?
            if let hand {
                guard let value = Hand(rawValue: hand) else {
                    return .failure(RequestProblem(message: "hand must be \"left\", \"right\" or \"both\", got \"\(hand)\""))
                }
                parsedHand = value
            }
            if let label, let problem = RecordingLabel.problem(label) {
                return .failure(RequestProblem(message: "label " + problem))
            }
            return .success(.record(client, hand: parsedHand, label: label, save: save ?? true))
        case "STOP":
            return .success(.stop(client))
        case "PRO":
            switch action ?? "status" {
            case "status":
                return .success(.pro(client, .status))
            case "revoke":
                return .success(.pro(client, .revoke))
            case "grant":
                var date: Date?
                if let expires {
                    guard let parsed = ManualOverride.expiry(from: expires) else {
                        return .failure(RequestProblem(
                            message: "expires must be a date (2027-03-01) or an ISO 8601 time, got \"\(expires)\""))
                    }
                    guard parsed > now else {
                        return .failure(RequestProblem(message: "expires \(expires) is in the past; give a later date"))
                    }
                    date = parsed
                }
                return .success(.pro(client, .grant(note: note, expires: date)))
            case let other:
                return .failure(RequestProblem(
                    message: "unknown PRO action \"\(other)\"; expected status, grant or revoke"))
            }
        default:
            return .failure(RequestProblem(message: "unknown request class \"\(name)\""))
        }
    }
}
