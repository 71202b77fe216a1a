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

/// The socket thread's state and loop.
struct ServerLoop {
    let server: SocketServer
    let listenDescriptor: Int32
    let stopDescriptor: Int32
    var clients: [Client] = []
    var stopping = false
    var nextClientID = 1
    /// The poll set, rebuilt in place on every wake-up (its storage is kept, so a wake-up allocates nothing).
    var pollSet: [pollfd] = []
    let decoder = JSONDecoder()
    /// The store's query thread (protocol 1.2); nil serves no store requests.
    var reader: StoreReader? { server.reader }

    init(server: SocketServer, listenDescriptor: Int32, stopDescriptor: Int32) {
        self.server = server
        self.listenDescriptor = listenDescriptor
        self.stopDescriptor = stopDescriptor
    }

    var logger: Logger { server.logger }

    mutating func run() {
        server.serving.store(true, ordering: .releasing)
        while !stopping {
            pollSet.removeAll(keepingCapacity: true)
            pollSet.append(pollfd(fd: listenDescriptor, events: Int16(POLLIN), revents: 0))
            pollSet.append(pollfd(fd: server.live.trouble.readDescriptor, events: Int16(POLLIN), revents: 0))
            pollSet.append(pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0))
            pollSet.append(pollfd(fd: server.recorder?.replies.wake.readDescriptor ?? -1, events: Int16(POLLIN), revents: 0))
            for client in clients {
                var events = client.closeAfterFlush ? 0 : Int16(POLLIN)
                if client.pendingBytes > 0 { events |= Int16(POLLOUT) }
                pollSet.append(pollfd(fd: client.descriptor, events: events, revents: 0))
            }
            publishCounts()
            server.liveness?.idle(.socket)
            let ready = SystemCall.poll(&pollSet, timeoutMilliseconds: -1)
            server.liveness?.busy(.socket)
            if ready < 0 {
                logger.error("poll failed", metadata: ["error.errno": "\(errno)"])
                break
            }
            if pollSet[2].revents != 0 { stopping = true }
            if pollSet[1].revents != 0 { handleTrouble() }
            if pollSet[3].revents != 0 { deliverReplies() }
            // Clients first (their descriptors match `clients` by index), then new connections.
            let snapshot = clients
            for (index, client) in snapshot.enumerated() {
                let revents = pollSet[Self.clientDescriptorBase + index].revents
                if revents == 0 || !clients.contains(where: { $0 === client }) { continue }
                service(client, revents: revents)
            }
            if pollSet[0].revents != 0 { acceptAll() }
        }
        // Shutdown: the pipeline and the recorder have ended before us; pass on their last replies, flush once,
        // close everything.
        deliverReplies()
        for client in clients {
            _ = client.output.flush()
            client.output.close()
        }
        clients.removeAll()
        close(listenDescriptor)
        unlink(server.path)
        logger.info("Socket closed", metadata: ["socket.path": "\(server.path)"])
    }

    /// Index of the first client in the poll set (after listen, live trouble, stop and replies).
    static let clientDescriptorBase = 4

    // MARK: Connections

    private mutating func acceptAll() {
        while true {
            let descriptor = SystemCall.retryingOnInterrupt { accept(listenDescriptor, nil, nil) }
            if descriptor < 0 {
                return  // EAGAIN: no more pending connections (other errors: try again on the next poll)
            }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            if var size = server.sendBufferBytes.map(Int32.init) {
                _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            var credentials = PeerCredentials()
            var length = socklen_t(MemoryLayout<PeerCredentials>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
                close(descriptor)
                continue
            }
            var groups = [credentials.gid] + Self.supplementaryGroups(descriptor)
            if let override = server.peerOverride {
                (credentials.uid, groups) = override(credentials.uid, groups)
            }
            let client = Client(
                descriptor: descriptor, id: nextClientID, pid: credentials.pid, uid: credentials.uid, gids: groups)
            nextClientID += 1
            let full = clients.count >= server.maxClients
            clients.append(client)
            switch server.authorization.decide(uid: credentials.uid, gids: groups) {
            case .allowed where full:
                logger.warning("Client refused: too many clients", metadata: [
                    "client.pid": "\(client.pid)", "clients.connected": "\(clients.count - 1)"])
                send(RequestProblem(
                    message: "griptrackd serves at most \(server.maxClients) clients at once; close one and connect again").line,
                    to: client)
                client.closeAfterFlush = true
            case .allowed:
                logger.info("Client connected", metadata: ["client.pid": "\(client.pid)", "client.uid": "\(client.uid)"])
                send(ProtocolMessage.version(release: server.release, database: server.reader == nil ? nil : server.databasePath), to: client)
            case .denied(let reason):
                logger.notice("Client refused", metadata: ["client.pid": "\(client.pid)", "client.uid": "\(client.uid)"])
                send(RequestProblem(message: reason).line, to: client)
                client.closeAfterFlush = true
            }
            if client.closeAfterFlush && client.pendingBytes == 0 { remove(client, reason: "refused") }
        }
    }

    /// SO_PEERGROUPS (Linux ≥ 4.13): the peer's supplementary groups at connect time.
    private static func supplementaryGroups(_ descriptor: Int32) -> [UInt32] {
        let peerGroups: Int32 = 59  // SO_PEERGROUPS; not exported by every Glibc module map
        var groups = [gid_t](repeating: 0, count: 64)
        var length = socklen_t(groups.count * MemoryLayout<gid_t>.size)
        var result = getsockopt(descriptor, SOL_SOCKET, peerGroups, &groups, &length)
        if result != 0 && errno == ERANGE {
            groups = [gid_t](repeating: 0, count: Int(length) / MemoryLayout<gid_t>.size + 1)
            length = socklen_t(groups.count * MemoryLayout<gid_t>.size)
            result = getsockopt(descriptor, SOL_SOCKET, peerGroups, &groups, &length)
        }
        guard result == 0 else { return [] }
        return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size))
    }

    private mutating func service(_ client: Client, revents: Int16) {
        if revents & Int16(POLLOUT) != 0 || client.closeAfterFlush {
            guard client.output.flush() != .failed else { return dropFailed(client) }
            if client.closeAfterFlush && client.pendingBytes == 0 { return remove(client, reason: "closed by daemon") }
        }
        if client.closeAfterFlush { return }
        if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            readRequests(client)
            if client.closeAfterFlush && client.pendingBytes == 0 { remove(client, reason: "closed by daemon") }
        }
    }

    private mutating func readRequests(_ client: Client) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = SystemCall.retryingOnInterrupt { recv(client.descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT)) }
        if count == 0 { return remove(client, reason: "client hung up") }
        if count < 0 {
            if errno == EAGAIN { return }
            // A peer that closes with unread replies makes the kernel reset the connection: that is a hang-up too.
            return remove(client, reason: errno == ECONNRESET ? "client hung up" : "read failed")
        }
        client.input.append(buffer[0..<count])
        while let line = client.input.nextLine() {
            guard case .line(let bytes) = line else { return refuseOversized(client) }
            handle(bytes, from: client)
            if client.closeAfterFlush { return }
        }
    }

    private mutating func refuseOversized(_ client: Client) {
        client.input.discardAll()
        send(RequestProblem(message: "request longer than \(DaemonSocket.requestLimit) bytes; closing the connection").line, to: client)
        client.closeAfterFlush = true
        publishWatchers()
        logger.notice("Client sent an oversized request", metadata: ["client.pid": "\(client.pid)"])
    }

    private mutating func handle(_ line: [UInt8], from client: Client) {
        let request: DaemonRequest
        switch DaemonRequest.decode(line, now: Date()) {
        case nil: return  // a blank line
        case .failure(let problem)?: return send(problem.line, to: client)
        case .success(let decoded)?: request = decoded
        }
        switch request {
        case .watch(let enable, let pace):
            if let pace { client.pace = pace }
            // The reply first: live lines follow it (and none follows a reply that ends watching).
            if !enable { setWatching(false, client) }
            send(ProtocolMessage.watch(enabled: enable, pace: client.pace), to: client)
            if enable {
                setWatching(true, client)
                server.gate.open()
                server.device?.resume()
            }
            logger.debug("Client watch", metadata: ["client.pid": "\(client.pid)", "client.watching": "\(enable)"])
        case .status:
            send(statusLine(), to: client)
            // The stored count may change outside the daemon (a CLI on the same file): re-read it for next time.
            server.recorder?.requests.post(.refreshAccess)
        case .pro(.importSigned(let data, let more, let kind)):
            importSigned(data, more: more, kind: kind, from: client)
        case .record(let hand, let label, let save):
            forwardToRecorder(request, from: client) { .record($0, hand: hand, label: label, save: save) }
        case .stop:
            forwardToRecorder(request, from: client) { .stop($0) }
        case .pro(let action):
            forwardToRecorder(request, from: client) { client in
                switch action {
                case .grant(let note, let expires): .pro(client, .grant(note: note, expires: expires))
                case .revoke: .pro(client, .revoke)
                case .status, .importSigned: .pro(client, .status)
                }
            }
        case .delete(let id):
            delete(RecordingID(rawValue: id), from: client)
        case .label(let id, let change):
            describe(RecordingID(rawValue: id), change, from: client)
        case .web(let action):
            web(action, from: client)
        case .tare:
            // Answered by the radio's control task once the write is done; the reply comes back through the reply mailbox.
            guard let device = server.device else {
                return send(RequestProblem(message: DeviceRequests.noDeviceForTare).line, to: client)
            }
            device.tare(forClient: client.id)
        case .list(let limit): ask(.list(limit: limit), from: client)
        case .show(let id): ask(.show(RecordingID(rawValue: id)), from: client)
        case .read(let id, let from): ask(.read(RecordingID(rawValue: id), fromSequence: from), from: client)
        case .stats: ask(.stats, from: client)
        case .history: ask(.history, from: client)
        case .plan: ask(.plan, from: client)
        }
    }

    /// RECORD, STOP and PRO run on the recorder thread (the store's only writer); their replies come back through
    /// the reply mailbox. Unauthorized admin requests are answered here.
    private mutating func forwardToRecorder(
        _ request: DaemonRequest, from client: Client, _ makeRequest: (ClientReference) -> RecorderRequest
    ) {
        guard let recorder = server.recorder else {
            return send(RequestProblem(
                message: "this daemon has no recordings database; \(request.className) is unavailable").line, to: client)
        }
        if case .pro(let action) = request, action != .status,
            case .denied(let reason) = server.authorization.decideAdmin(uid: client.uid, gids: client.gids)
        {
            logger.notice("Pro change refused", metadata: ["client.pid": "\(client.pid)", "client.uid": "\(client.uid)"])
            return send(RequestProblem(message: reason).line, to: client)
        }
        recorder.requests.post(makeRequest(client.reference))
    }

    /// Sends the recorder's replies and reports.
    private mutating func deliverReplies() {
        guard let recorder = server.recorder else { return }
        for reply in recorder.replies.take() {
            switch reply.target {
            case .client(let id):
                guard let client = clients.first(where: { $0.id == id && !$0.closeAfterFlush }) else { continue }
                if reply.completesQuery { client.queriesInFlight -= 1 }
                send(reply.line, to: client)
            case .watchers:
                broadcast(reply.line)
            }
        }
    }

    private func statusLine() -> String {
        let snapshot = server.status.snapshot
        let hasRecorder = server.recorder != nil
        return DaemonMessage.StatusReply(
            device: DaemonMessage.StatusReply.Device(
                source: snapshot.source, state: snapshot.deviceState, profile: snapshot.profile,
                address: snapshot.deviceAddress, name: snapshot.deviceName, batteryMv: snapshot.batteryMillivolts,
                problem: snapshot.deviceProblem, correctionScale: snapshot.correction?.scale,
                correctionOffsetKg: snapshot.correction?.offsetKilograms),
            frames: DaemonMessage.StatusReply.Frames(
                total: snapshot.frames.total, decoded: snapshot.frames.decoded, malformed: snapshot.frames.malformed,
                dropped: snapshot.frames.dropped),
            ring: DaemonMessage.StatusReply.Ring(dropped: snapshot.ringDropped, oversized: snapshot.ringOversized),
            // Kept for 1.0 clients: live lines are no longer handed between threads, so none is lost on the way.
            fanoutDropped: 0,
            clients: DaemonMessage.StatusReply.Clients(
                connected: clients.count, watching: clients.filter(\.watching).count, backlogBytes: backlogBytes),
            recorder: hasRecorder ? ProtocolMessage.recorderObject(snapshot.recorder) : nil,
            access: hasRecorder ? snapshot.access.map(ProtocolMessage.accessObject) : nil,
            sync: server.sync.map { ProtocolMessage.syncObject($0.snapshot) }
        ).line
    }

    private func setWatching(_ watching: Bool, _ client: Client) {
        client.watching = watching
        publishWatchers()
    }

    /// Tells the consumer who watches at which pace (each client's own pace first, so a client that stopped
    /// watching gets nothing more even from the consumer's older list).
    private func publishWatchers() {
        var batched: [ClientOutput] = []
        var immediate: [ClientOutput] = []
        var slow: [ClientOutput] = []
        for client in clients {
            let pace = client.livePace
            client.output.setLivePace(pace)
            switch pace {
            case .batched?: batched.append(client.output)
            case .immediate?: immediate.append(client.output)
            case .slow?: slow.append(client.output)
            case nil: break
            }
        }
        server.live.publish(batched: batched, immediate: immediate, slow: slow)
        // The radio drains an acquired notify socket in batches unless a watcher wants each notification at once.
        server.pacing?.setImmediate(!immediate.isEmpty)
    }

    /// The consumer found a watcher behind or broken: drop the broken ones and keep the backlogs within the budget
    /// (the next poll set asks POLLOUT for the ones behind).
    private mutating func handleTrouble() {
        server.live.clearTrouble()
        for client in clients where client.output.failure != nil { dropFailed(client) }
        keepWithinBudget()
    }

    private mutating func dropFailed(_ client: Client) {
        guard clients.contains(where: { $0 === client }) else { return }
        switch client.output.failure {
        case .tooSlow(let backlogBytes)?:
            logger.warning("Slow client dropped", metadata: [
                "client.pid": "\(client.pid)", "client.backlogBytes": "\(backlogBytes)"])
            remove(client, reason: "too slow")
        case .writeFailed?, nil:
            remove(client, reason: "write failed")
        }
    }

    /// The client counts `/metrics` reads, as of this wake-up (the thread does not wake while streaming, so this
    /// costs nothing per line).
    private func publishCounts() {
        let counters = server.status.counters
        counters.clients.store(clients.count, ordering: .relaxed)
        counters.watchers.store(clients.filter(\.watching).count, ordering: .relaxed)
        counters.backlogBytes.store(backlogBytes, ordering: .relaxed)
    }

    private mutating func remove(_ client: Client, reason: String) {
        guard let index = clients.firstIndex(where: { $0 === client }) else { return }
        if ["too slow", "write failed", "over the clients' budget"].contains(reason) {
            server.status.counters.clientsDropped.add(1, ordering: .relaxed)
        }
        clients.remove(at: index)
        client.output.close()
        publishWatchers()
        server.recorder?.requests.post(.clientGone(id: client.id))
        logger.info("Client disconnected", metadata: ["client.pid": "\(client.pid)", "client.reason": "\(reason)"])
    }

    // MARK: Output

    /// Queues `line` and tries to write at once. A client whose queue passes the backlog limit is dropped.
    mutating func send(_ line: String, to client: Client) {
        switch client.output.send(line, backlogLimit: server.live.backlogLimit) {
        case .caughtUp, .notWatching: break
        case .behind: keepWithinBudget()
        case .failed: dropFailed(client)
        }
    }

    /// Bytes queued for every client together.
    var backlogBytes: Int { clients.reduce(0) { $0 + $1.pendingBytes } }

    /// Drops the clients that have been behind longest until all backlogs together fit the budget. Longest, not
    /// largest: a client that never reads has been behind since its first lines, while one that reads but was
    /// descheduled for a second holds as many bytes yet catches up as soon as it runs (only clients that do not read
    /// hold a backlog, so this scans a handful of clients on a rare path).
    private mutating func keepWithinBudget() {
        while backlogBytes > server.clientBudgetBytes,
            let stalest = clients.compactMap({ client in client.output.behindSince.map { (client, $0) } })
                .min(by: { $0.1 < $1.1 })?.0
        {
            logger.warning("Slow client dropped: all clients' backlogs are over the budget", metadata: [
                "client.pid": "\(stalest.pid)", "client.backlogBytes": "\(stalest.pendingBytes)",
                "clients.budgetBytes": "\(server.clientBudgetBytes)"])
            remove(stalest, reason: "over the clients' budget")
        }
    }

    private mutating func broadcast(_ line: String) {
        for client in clients where client.watching && !client.closeAfterFlush {
            send(line, to: client)
        }
    }
}
