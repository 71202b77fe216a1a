import Foundation

/// A per-client sliding one-minute window of requests: the rate limit's decision, with no clock or lock of its own
/// (the caller passes the time and keeps the value under its lock).
struct RequestWindow: Sendable, Equatable {
    let limit: Int
    private(set) var recent: [String: [Date]] = [:]

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a request from `client` at `now`; false when the client already made `limit` in the last minute
    /// (a refused request is not counted, so a client that backs off gets through again a minute after its
    /// last accepted one).
    mutating func admit(_ client: String, now: Date) -> Bool {
        let cutoff = now.addingTimeInterval(-60)
        // Clients whose requests are all older than a minute are forgotten, so the table stays small.
        if recent.count > 1_000 { recent = recent.filter { $0.value.contains { $0 > cutoff } } }
        var times = (recent[client] ?? []).filter { $0 > cutoff }
        guard times.count < limit else {
            recent[client] = times
            return false
        }
        times.append(now)
        recent[client] = times
        return true
    }
}
