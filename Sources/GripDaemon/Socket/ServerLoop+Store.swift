import Foundation
import GripAnalysis
import GripProtocol
import GripStore

/// The store requests of protocol 1.2 on the socket thread: queries go to the `StoreReader` thread, changes to the
/// recorder (the only writer), PRO import to the verifier first. Nothing here touches the database.
extension ServerLoop {
    /// Store queries one client may have unanswered at once; more get ERROR `busy` (a client reads its replies,
    /// one READ page at a time, so its backlog stays small).
    static let queriesInFlightLimit = 4
    /// The most PRO import data accepted in parts, in bytes.
    static let importDataLimit = 65536

    /// LIST, SHOW, READ, STATS, HISTORY, PLAN: every authorized peer (root, the daemon's user, group griptrack).
    mutating func ask(_ query: StoreQuery, from client: Client) {
        guard let reader else {
            return send(RequestProblem(code: .store, message: "this daemon has no recordings database").line, to: client)
        }
        guard client.queriesInFlight < Self.queriesInFlightLimit else {
            return send(RequestProblem(
                code: .busy,
                message: "\(Self.queriesInFlightLimit) queries are waiting for their replies; read them first").line,
                to: client)
        }
        client.queriesInFlight += 1
        reader.jobs.post(StoreJob(client: client.reference, query: query))
    }

    /// DELETE: root or group griptrack-admin.
    mutating func delete(_ id: RecordingID, from client: Client) {
        guard let recorder = server.recorder else {
            return send(RequestProblem(code: .store, message: "this daemon has no recordings database").line, to: client)
        }
        guard admin(client, "deleting a recording") else { return }
        recorder.requests.post(.change(client.reference, .delete(id)))
    }

    /// LABEL (1.6): root or group griptrack-admin, as every store change.
    mutating func describe(_ id: RecordingID, _ change: RecordingDescription, from client: Client) {
        guard let recorder = server.recorder else {
            return send(RequestProblem(code: .store, message: "this daemon has no recordings database").line, to: client)
        }
        guard admin(client, "labelling a recording") else { return }
        recorder.requests.post(.change(client.reference, .describe(id, change)))
    }

    /// PRO import: root or group griptrack-admin. Signed data longer than a request line comes in parts
    /// (`"more":true` on every part but the last); the daemon verifies it itself, then the recorder stores it.
    mutating func importSigned(_ part: String, more: Bool, kind: SignedDataImportKind, from client: Client) {
        guard let recorder = server.recorder, let importer = server.importer else {
            return send(RequestProblem(code: .store, message: "this daemon has no recordings database").line, to: client)
        }
        guard admin(client, "importing App Store signed data") else {
            client.importData = nil
            return
        }
        let data = (client.importData ?? "") + part
        guard data.utf8.count <= Self.importDataLimit else {
            client.importData = nil
            return send(RequestProblem(
                code: .invalid, message: "signed data longer than \(Self.importDataLimit) bytes; nothing was imported").line,
                to: client)
        }
        if more {
            client.importData = data
            return
        }
        client.importData = nil
        guard !data.isEmpty else {
            return send(RequestProblem(code: .invalid, message: "PRO import needs \"data\": the signed data (a compact JWS)").line, to: client)
        }
        let reference = client.reference
        let replies = recorder.replies
        let requests = recorder.requests
        importer.verify(data, as: kind) { outcome in
            switch outcome {
            case .success(let verified):
                requests.post(.change(reference, .importSigned(ImportedSignedData(verified: verified, jws: data))))
            case .failure(let problem):
                replies.post(DaemonReply(target: .client(reference.id), line: problem.line))
            }
        }
    }

    /// Whether `client` may change the store; refuses it (ERROR `not_authorized`, connection kept) otherwise.
    mutating func admin(_ client: Client, _ what: String) -> Bool {
        guard case .denied = server.authorization.decideAdmin(uid: client.uid, gids: client.gids) else { return true }
        logger.notice("Store change refused", metadata: ["client.pid": "\(client.pid)", "client.uid": "\(client.uid)"])
        send(RequestProblem(
            code: .notAuthorized,
            message: "not authorized: \(what) needs root or group \(server.authorization.adminGroupName) "
                + "(`sudo usermod -aG \(server.authorization.adminGroupName) USER`, then log in again)").line,
            to: client)
        return false
    }
}
