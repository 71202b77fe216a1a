import Foundation
import GripProtocol
import GripStore

/// WEB (protocol 1.5): the web app's pairing codes and credentials, for root and group griptrack-admin. The socket
/// thread checks the peer and the fields; ``WebAccess`` does the database work on its own queue and the reply comes
/// back through the reply mailbox, like a store change's.
extension ServerLoop {
    mutating func web(_ action: DaemonRequest.WebAction, from client: Client) {
        guard let access = server.web, let replies = server.recorder?.replies else {
            return send(RequestProblem(code: .store, message: "this daemon has no recordings database; WEB is unavailable").line, to: client)
        }
        guard admin(client, "managing the web app's access") else { return }
        let reference = client.reference
        let reply: @Sendable (String) -> Void = { replies.post(DaemonReply(target: .client(reference.id), line: $0)) }
        switch action {
        case .pair(let role, let name):
            let name = name ?? Self.browserName()
            let (code, expires) = access.makePairingCode(role: role, name: name, now: Date())
            let line = DaemonMessage.WebReply.pair(
                code: code, expires: expires.timeIntervalSince1970.rounded(), role: role.rawValue, name: name,
                listen: access.listenAddress, scheme: access.listenScheme)
            send(line.line, to: client)
        case .token(let role, let name):
            access.perform {
                do throws(GripStoreError) {
                    guard let token = try access.createToken(role: role, name: name, now: Date()) else {
                        return reply(RequestProblem(
                            code: .invalid,
                            message: "a web credential called \(name) exists already; choose another --name or revoke it "
                                + "(`griptrack web revoke \(name)`)").line)
                    }
                    reply(DaemonMessage.WebReply.token(token, role: role.rawValue, name: name).line)
                } catch {
                    reply(RequestProblem(code: .store, message: error.description).line)
                }
            }
        case .tokens:
            access.perform {
                do throws(GripStoreError) {
                    let credentials = try access.credentials().map { credential in
                        DaemonMessage.WebReply.Credential(
                            name: credential.name, role: credential.role.rawValue, kind: credential.kind.rawValue,
                            created: credential.createdAt.timeIntervalSince1970.rounded(),
                            revoked: credential.revokedAt?.timeIntervalSince1970.rounded())
                    }
                    reply(DaemonMessage.WebReply.tokens(credentials).line)
                } catch {
                    reply(RequestProblem(code: .store, message: error.description).line)
                }
            }
        case .revoke(let name):
            access.perform {
                do throws(GripStoreError) {
                    guard try access.revoke(name: name, now: Date()) != nil else {
                        return reply(RequestProblem(
                            code: .notFound,
                            message: "no valid web credential is called \(name); `griptrack web tokens` lists them").line)
                    }
                    reply(DaemonMessage.WebReply.revoked(name: name).line)
                } catch {
                    reply(RequestProblem(code: .store, message: error.description).line)
                }
            }
        }
    }

    /// A default name for a paired browser: `browser-` and four random hex digits.
    static func browserName() -> String {
        let value = UInt16.random(in: 0...UInt16.max)
        let hex = String(value, radix: 16)
        return "browser-" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
