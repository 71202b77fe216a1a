/// A line for the socket thread to send: to one client (a reply) or to every watcher (a report).
struct DaemonReply: Sendable, Equatable {
    enum Target: Sendable, Equatable {
        /// The client with this id; dropped if it has gone.
        case client(Int)
        /// Every client that watches.
        case watchers
    }

    var target: Target
    /// One protocol line, newline included.
    var line: String
    /// The answer to a store query (protocol 1.2): the socket thread counts the client's queries in flight.
    var completesQuery = false
}
