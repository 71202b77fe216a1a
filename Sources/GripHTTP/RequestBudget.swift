/// How many requests each client may make per window, counted in fixed one-minute buckets: the decision of every
/// rate limit griptrack has (the web app's pairing, griptrack-hub's notifications and health checks), with no
/// clock or lock of its own (``ClientRateLimiter`` holds it under a lock and passes the time).
///
/// Each client has a count for the current minute and one for the minute before; a request is admitted while the
/// previous minute's count, weighted by how much of it still lies within the last 60 s, plus the current count is
/// under the limit (the sliding-window estimate of nginx and Cloudflare). Every request is O(1): a dictionary
/// lookup, and at each new minute the current table becomes the previous one whole. The tables never hold more
/// than ``maxClients`` each; past that, new clients share one overflow count, so many addresses buy an attacker
/// one client's budget, not unbounded memory.
package struct RequestBudget: Sendable, Equatable {
    /// Requests per client per minute.
    package let limit: Int
    /// The most clients counted apart in one minute.
    package let maxClients: Int
    private var minute: Int64 = .min
    private var current: [ClientKey: Int] = [:]
    private var previous: [ClientKey: Int] = [:]

    /// How many clients the current minute tells apart (at most ``maxClients``).
    package var trackedClients: Int { current.count }

    /// - Parameters:
    ///   - limit: Requests per client per minute.
    ///   - maxClients: The most clients counted apart in one minute.
    package init(limit: Int, maxClients: Int = 10_000) {
        self.limit = limit
        self.maxClients = maxClients
    }

    /// Counts a request from `client` at `seconds` (any monotonic or wall clock, in seconds); false, and not
    /// counted, when the client has used up its budget, so a client that backs off gets through again.
    ///
    /// - Parameters:
    ///   - client: Who asks (``ClientKey``).
    ///   - seconds: The time.
    /// - Returns: Whether the request may go on.
    package mutating func admit(_ client: ClientKey, at seconds: Double) -> Bool {
        let key = advance(to: seconds, for: client)
        guard hasRoom(key, at: seconds) else { return false }
        current[key, default: 0] += 1
        return true
    }

    /// Whether `client` has budget left at `seconds`, counting nothing: for a limit that counts only what
    /// failed (the web app's pairing counts refused codes, so users behind one address who type their codes right
    /// never use up each other's minute), ask this first and ``admit(_:at:)`` after a failure.
    package mutating func hasBudget(_ client: ClientKey, at seconds: Double) -> Bool {
        // Two statements: in `hasRoom(advance(…))` self would be read for the call before `advance` moved it on.
        let key = advance(to: seconds, for: client)
        return hasRoom(key, at: seconds)
    }

    /// Moves the tables on to the minute of `seconds`; the key `client` is counted under.
    private mutating func advance(to seconds: Double, for client: ClientKey) -> ClientKey {
        let thisMinute = Self.minute(of: seconds)
        if thisMinute != minute {
            previous = thisMinute == minute + 1 ? current : [:]
            current = [:]
            current.reserveCapacity(min(previous.count, maxClients))
            minute = thisMinute
        }
        // One entry stays free for the overflow count itself.
        return current[client] != nil || current.count < maxClients - 1 ? client : .overflow
    }

    private func hasRoom(_ key: ClientKey, at seconds: Double) -> Bool {
        let elapsed = (seconds - Double(minute * 60)) / 60
        let carried = Double(previous[key] ?? 0) * max(0, 1 - elapsed)
        return carried + Double(current[key] ?? 0) < Double(limit)
    }

    private static func minute(of seconds: Double) -> Int64 {
        let now = Int64(seconds.isFinite ? max(min(seconds, 1e15), -1e15) : 0)
        return now >= 0 ? now / 60 : (now - 59) / 60
    }
}
