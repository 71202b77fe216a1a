import Foundation
import Glibc
import GripConfig
import GripDaemon
import GripStore
import GripTestSupport
import Logging
@testable import GripWeb

/// A daemon replaying a capture in-process (socket and database in a fresh temporary directory) with its web app on
/// 127.0.0.1 and a port the system chose.
final class WebHarness: Sendable {
    let directory: String
    let socketPath: String
    let daemon: Daemon
    let server: WebServer
    let port: Int
    private let daemonTask: Task<Void, any Error>
    private let serverTask: Task<Void, any Error>

    init(
        capture: String = "progressor-repeaters.btsnoop", speed: Double = 20, anonymous: GriptrackConfig.Web.Anonymous = .none,
        eventBacklogLines: Int = WebSettings.eventBacklogLines, eventSendBufferBytes: Int = WebSettings.eventSendBufferBytes,
        keepsStreamOpen: Bool = true, tls: WebSettings.TLSFiles? = nil, protocols: [GriptrackConfig.NamedProtocol] = [],
        configure: (inout DaemonConfiguration) -> Void = { _ in },
        configureWeb: (inout WebSettings) -> Void = { _ in }
    ) async throws {
        var template = Array("/tmp/gtw-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp failed") }
        directory = String(cString: made)
        socketPath = directory + "/griptrack.sock"
        var configuration = DaemonConfiguration(
            socketPath: socketPath, replayPath: CaptureFixtures.url(capture).path, replaySpeed: speed,
            replayWaitsForWatcher: true, databasePath: directory + "/griptrack.db")
        configuration.replayKeepsStreamOpen = keepsStreamOpen
        configure(&configuration)
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let daemon = try Daemon(configuration: configuration, logger: logger)
        self.daemon = daemon
        daemonTask = Task { try await daemon.run() }
        await daemon.waitUntilServing()
        var settings = WebSettings(
            listen: WebListen("127.0.0.1:0")!, anonymous: anonymous, socketPath: socketPath, tls: tls)
        settings.eventBacklogLines = eventBacklogLines
        settings.eventSendBufferBytes = eventSendBufferBytes
        settings.protocols = protocols
        configureWeb(&settings)
        let server = WebServer(
            settings: settings, access: daemon.webAccess, logger: logger, metrics: { daemon.metricsExposition() })
        self.server = server
        serverTask = Task { try await server.run() }
        guard let port = await server.waitUntilListening() else { throw HarnessError("the web server did not start") }
        self.port = port
    }

    func stop() async throws {
        serverTask.cancel()
        _ = try? await serverTask.value
        await daemon.shutdown()
        try await daemonTask.value
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// One WEB request through the daemon's socket (the test runs as root: an admin, unless `configure` said
    /// otherwise), its reply as JSON.
    func admin(_ request: String) async throws -> [String: Any] {
        let line = try await DaemonLink.ask(path: socketPath, line: request + "\n", replyClass: "WEB")
        let object = try JSONSerialization.jsonObject(with: Data(line.readableBytesView)) as? [String: Any]
        guard let object else { throw HarnessError("not a JSON object: \(String(buffer: line))") }
        return object
    }

    /// A new bearer token with `role`.
    func token(_ role: String, name: String) async throws -> String {
        let reply = try await admin(#"{"class":"WEB","action":"token","role":"\#(role)","name":"\#(name)"}"#)
        guard let token = reply["token"] as? String else { throw HarnessError("no token: \(reply)") }
        return token
    }

    /// A pairing code for `role`.
    func pairingCode(_ role: String, name: String? = nil) async throws -> String {
        let named = name.map { #","name":"\#($0)""# } ?? ""
        let reply = try await admin(#"{"class":"WEB","action":"pair","role":"\#(role)"\#(named)}"#)
        guard let code = reply["code"] as? String else { throw HarnessError("no code: \(reply)") }
        return code
    }

    func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil
    ) async throws -> HTTPTestResponse {
        let port = self.port
        return try await offPool { try HTTPTestClient.request(port: port, method, path, headers: headers, body: body) }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

