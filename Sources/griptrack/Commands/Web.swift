import ArgumentParser
import Foundation
import GripProtocol
import GripSystem

extension Griptrack {
    /// `griptrack web`: who may use griptrackd's web app (pairing, tokens, revocation).
    struct Web: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "web",
            abstract: "Pair browsers with the web app and manage its tokens.",
            discussion: """
                The web app runs inside griptrackd when [web] listen is set (docs/web.md). These commands go \
                through the daemon's socket and need root or group griptrack-admin.
                """,
            subcommands: [Pair.self, Token.self, Tokens.self, Revoke.self]
        )
    }
}

/// The daemon's socket, for the `web` commands.
struct WebSocketOption: ParsableArguments {
    @Option(help: ArgumentHelp("griptrackd's socket (default: /run/griptrack/griptrack.sock).", valueName: "path"))
    var socket: String?

    var path: String { socket ?? DaemonSocket.defaultPath }
}

/// One WEB request to the daemon (protocol 1.5) and its reply, parsed.
enum WebAdmin {
    static func ask(_ action: DaemonRequest.WebAction, socket: String) async throws -> DaemonMessage.WebReply {
        let answer: Result<DaemonMessage.WebReply, DaemonClientError> = await NamedThread.run(name: "gt-client") {
            do throws(DaemonClientError) {
                let connection = try DaemonConnection(path: socket)
                defer { connection.close() }
                try connection.require(minor: 5)
                let (message, line) = try connection.request(.web(action), isReply: {
                    if case .web = $0 { true } else { false }
                })
                guard case .web(let reply) = message else { throw DaemonClientError.malformed(line: line) }
                return .success(reply)
            } catch {
                return .failure(error)
            }
        }
        switch answer {
        case .success(let reply):
            return reply
        case .failure(let error):
            throw error.exit.fail(error.description)
        }
    }
}

/// `--role watch|record|admin`: the WEB request's role, read from the command line.
extension WebRole: ExpressibleByArgument {}
