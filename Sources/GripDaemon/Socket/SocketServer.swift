import Foundation
import Glibc
import GripBlueZ
import GripProtocol
import GripStore
import GripStream
import GripSync
import GripSystem
import Logging
import ServiceLifecycle
import Synchronization

/// The daemon's Unix socket: newline-delimited JSON in gpsd's spirit (docs/protocol.md).
///
/// One thread runs a `poll(2)` loop over the listening socket, every client and three wake pipes (live trouble,
/// stop, and the reply mailbox through which the recorder answers RECORD, STOP and PRO and reports RECORDER
/// events). Why a single poll thread rather than a thread per client or SwiftNIO: clients are few (a CLI, a
/// dashboard), every client is non-blocking so a stalled reader can only grow its own bounded backlog (and is then
/// dropped), and there is no dependency to add. SAMPLES and stream events do not pass through this thread: the
/// consumer writes them to watchers itself (`LiveWriter`), and wakes this thread only when a watcher falls behind
/// (`LiveWatchers`). The thread sleeps in poll with no timeout, so streaming costs it no wake-ups and an idle
/// daemon makes no periodic ones.
final class SocketServer: Service, CustomStringConvertible {
    /// Connections the kernel queues before the socket thread accepts them. The thread accepts every pending
    /// connection on each wake-up, so this only has to cover a burst between two wake-ups (a dashboard and a few
    /// CLIs reconnecting together); more than that is refused by the kernel (ECONNREFUSED/EAGAIN), not queued.
    static let listenBacklog: Int32 = 16

    let path: String
    let release: String
    /// The recordings database, named in VERSION (1.2).
    let databasePath: String
    let authorization: Authorization
    let clientBudgetBytes: Int
    let maxClients: Int
    /// SO_SNDBUF for accepted connections (nil: the kernel's default).
    let sendBufferBytes: Int?
    /// The watchers as the consumer writes to them.
    let live: LiveWatchers
    /// Told whether any watcher takes the immediate pace (nil without a radio).
    let pacing: NotificationPacing?
    let status: DaemonStatus
    let gate: StartGate
    /// The radio's request channel (TARE, resume); nil without a BlueZ source.
    let device: DeviceRequests?
    /// The recorder's request and reply mailboxes; nil serves live data only.
    let recorder: RecorderChannels?
    /// The store's query thread and the signed-data verifier (protocol 1.2); nil without a recordings database.
    let reader: StoreReader?
    /// The push to PostgreSQL (protocol 1.4, STATUS `sync`); nil without `[sync] url`.
    let sync: SyncService?
    /// Marks the socket thread busy per wake-up, for the watchdog.
    let liveness: ThreadLiveness?
    let importer: SignedDataImporter?
    /// The web app's credentials and pairing codes (protocol 1.5, WEB); nil without a recordings database.
    let web: WebAccess?
    /// Tests: what the daemon believes about each peer instead of its real credentials.
    let peerOverride: DaemonConfiguration.PeerOverride?
    let logger: Logger
    private let listenDescriptor: Int32
    private let stop: WakePipe
    /// Set once the socket thread polls (clients get VERSION from then on).
    let serving = Atomic<Bool>(false)

    var description: String { "SocketServer" }

    /// Binds and listens at once, so a bad path fails startup and READY=1 comes only after the socket accepts.
    init(
        configuration: DaemonConfiguration, authorization: Authorization, live: LiveWatchers, status: DaemonStatus,
        gate: StartGate, device: DeviceRequests? = nil, recorder: RecorderChannels? = nil, reader: StoreReader? = nil,
        sync: SyncService? = nil, importer: SignedDataImporter? = nil, liveness: ThreadLiveness? = nil,
        pacing: NotificationPacing? = nil, web: WebAccess? = nil, logger: Logger
    ) throws(DaemonError) {
        self.web = web
        path = configuration.socketPath
        release = configuration.release
        databasePath = configuration.databasePath
        clientBudgetBytes = configuration.clientBudgetBytes
        maxClients = configuration.maxClients
        sendBufferBytes = configuration.clientSendBufferBytes
        self.authorization = authorization
        self.live = live
        self.pacing = pacing
        self.status = status
        self.gate = gate
        self.device = device
        self.recorder = recorder
        self.reader = reader
        self.sync = sync
        self.liveness = liveness
        self.importer = importer
        peerOverride = configuration.peerOverride
        self.logger = logger
        guard let address = UnixAddress(path: path), !path.hasPrefix("@") else {
            throw .socket("use socket path \(path) (empty or longer than 107 bytes)", errno: ENAMETOOLONG)
        }
        try Self.removeStaleSocket(at: path, address: address)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw .socket("create a Unix socket", errno: errno) }
        let bound = address.withSockaddr { bind(descriptor, $0, $1) }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw .socket("bind \(path)", errno: code)
        }
        // Anyone may connect; SO_PEERCRED decides who may watch (a refused peer gets a reason, not EACCES).
        chmod(path, 0o666)
        guard listen(descriptor, Self.listenBacklog) == 0 else {
            let code = errno
            close(descriptor)
            unlink(path)
            throw .socket("listen on \(path)", errno: code)
        }
        do {
            stop = try WakePipe(daemonPurpose: "stop")
        } catch {
            close(descriptor)
            unlink(path)
            throw error
        }
        listenDescriptor = descriptor
        logger.info("Socket listening", metadata: ["socket.path": "\(path)"])
    }

    deinit {
        stop.close()
    }

    private static func removeStaleSocket(at path: String, address: UnixAddress) throws(DaemonError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if probe >= 0 {
            defer { close(probe) }
            if address.withSockaddr({ connect(probe, $0, $1) }) == 0 { throw .alreadyRunning(path: path) }
        }
        unlink(path)
    }

    func run() async throws {
        async let served: Void = NamedThread.run(name: "gt-socket") { [self] in
            var loop = ServerLoop(server: self, listenDescriptor: listenDescriptor, stopDescriptor: stop.readDescriptor)
            loop.run()
        }
        try? await gracefulShutdown()
        stop.signal()
        await served
    }
}
