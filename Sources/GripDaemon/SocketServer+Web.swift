import Foundation
import GripStore

/// WEB (protocol 1.5): the web app's pairing codes and credentials, for root and group griptrack-admin. The socket
/// thread checks the peer and the fields; ``WebAccess`` does the database work on its own queue and the reply comes
/// back through the reply mailbox, like a store change's.
extension ServerLoop {
    mutating func web(_ request: ClientRequest, from client: Client) {
        guard let access = server.web, let replies = server.recorder?.replies else {
            return send(StoreProblem(code: .store, message: "this daemon has no recordings database; WEB is unavailable").line, to: client)
        }
        guard admin(client, "managing the web app's access") else { return }
        let action = request.action ?? ""
        let reference = client.reference
        let reply: @Sendable (String) -> Void = { replies.post(DaemonReply(target: .client(reference.id), line: $0)) }
        switch action {
        case "pair", "token":
            let role: WebRole
            switch WebRequestParser.role(request.role, default: action == "pair" ? .watch : nil) {
            case .failure(let problem): return send(problem.line, to: client)
            case .success(let parsed): role = parsed
            }
            let name: String
            switch WebRequestParser.name(request.name, default: action == "pair" ? WebRequestParser.browserName() : nil) {
            case .failure(let problem): return send(problem.line, to: client)
            case .success(let parsed): name = parsed
            }
            if action == "pair" {
                let (code, expires) = access.makePairingCode(role: role, name: name, now: Date())
                var line = JSONLine(class: "WEB")
                line.add("action", "pair")
                line.add("code", code)
                line.add("expires", expires.timeIntervalSince1970.rounded())
                line.add("role", role.rawValue)
                line.add("name", name)
                if let listen = access.listenAddress { line.add("listen", listen) }
                return send(line.line, to: client)
            }
            access.perform {
                do throws(GripStoreError) {
                    guard let token = try access.createToken(role: role, name: name, now: Date()) else {
                        return reply(StoreProblem(
                            code: .invalid,
                            message: "a web credential called \(name) exists already; choose another --name or revoke it "
                                + "(`griptrack web revoke \(name)`)").line)
                    }
                    var line = JSONLine(class: "WEB")
                    line.add("action", "token")
                    line.add("name", name)
                    line.add("role", role.rawValue)
                    line.add("token", token)
                    reply(line.line)
                } catch {
                    reply(StoreProblem(code: .store, message: error.description).line)
                }
            }
        case "tokens":
            access.perform {
                do throws(GripStoreError) {
                    let objects = try access.credentials().map { credential in
                        var item = JSONLine()
                        item.add("name", credential.name)
                        item.add("role", credential.role.rawValue)
                        item.add("kind", credential.kind.rawValue)
                        item.add("created", credential.createdAt.timeIntervalSince1970.rounded())
                        if let revoked = credential.revokedAt { item.add("revoked", revoked.timeIntervalSince1970.rounded()) }
                        return item.object
                    }
                    var line = JSONLine(class: "WEB")
                    line.add("action", "tokens")
                    line.addRaw("credentials", "[" + objects.joined(separator: ",") + "]")
                    reply(line.line)
                } catch {
                    reply(StoreProblem(code: .store, message: error.description).line)
                }
            }
        case "revoke":
            guard let name = request.name, !name.isEmpty else {
                return send(StoreProblem(code: .invalid, message: "WEB revoke needs \"name\": the credential's name (`griptrack web tokens` lists them)").line, to: client)
            }
            access.perform {
                do throws(GripStoreError) {
                    guard try access.revoke(name: name, now: Date()) != nil else {
                        return reply(StoreProblem(
                            code: .notFound,
                            message: "no valid web credential is called \(name); `griptrack web tokens` lists them").line)
                    }
                    var line = JSONLine(class: "WEB")
                    line.add("action", "revoke")
                    line.add("name", name)
                    line.add("revoked", true)
                    reply(line.line)
                } catch {
                    reply(StoreProblem(code: .store, message: error.description).line)
                }
            }
        default:
            send(StoreProblem(
                code: .invalid, message: "WEB action must be pair, token, tokens or revoke, got \"\(action)\"").line, to: client)
        }
    }
}

/// Checks the fields of WEB requests on the socket thread.
enum WebRequestParser {
    static func role(_ text: String?, default fallback: WebRole?) -> Result<WebRole, StoreProblem> {
        guard let text else {
            if let fallback { return .success(fallback) }
            return .failure(StoreProblem(code: .invalid, message: "WEB token needs \"role\": watch, record or admin"))
        }
        guard let role = WebRole(rawValue: text) else {
            return .failure(StoreProblem(code: .invalid, message: "role must be watch, record or admin, got \"\(text)\""))
        }
        return .success(role)
    }

    /// 1–64 characters, no control characters, no spaces at either end.
    static func name(_ text: String?, default fallback: String?) -> Result<String, StoreProblem> {
        guard let text else {
            if let fallback { return .success(fallback) }
            return .failure(StoreProblem(code: .invalid, message: "WEB token needs \"name\", e.g. \"grafana\""))
        }
        guard (1...64).contains(text.count), text.trimmingCharacters(in: .whitespaces) == text,
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            return .failure(StoreProblem(
                code: .invalid,
                message: "name must be 1 to 64 characters without control characters or spaces at either end, got \"\(text)\""))
        }
        return .success(text)
    }

    /// A default name for a paired browser: `browser-` and four random hex digits.
    static func browserName() -> String {
        let value = UInt16.random(in: 0...UInt16.max)
        let hex = String(value, radix: 16)
        return "browser-" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
