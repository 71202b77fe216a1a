import PostgresNIO

extension SyncError {
    /// Maps whatever postgres-nio (or a transaction body) threw to a ``SyncError``.
    ///
    /// - Parameters:
    ///   - error: The error.
    ///   - operation: What sync was doing, for the message.
    init(_ error: any Error, operation: String) {
        if let error = error as? SyncError {
            self = error
        } else if let error = error as? PostgresTransactionError {
            self = SyncError(error.closureError ?? error.commitError ?? error.beginError ?? error, operation: operation)
        } else if let error = error as? PSQLError {
            self = .server(operation: operation, detail: Self.detail(error))
        } else {
            self = .server(operation: operation, detail: ServerText.clean(String(describing: error)))
        }
    }

    /// The server's message and SQLSTATE, or the connection failure (PSQLError's `description` hides both),
    /// cleaned for printing (``ServerText``).
    static func detail(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return ServerText.clean(String(describing: error)) }
        if let server = error.serverInfo {
            let message = server[.message] ?? "no message"
            let state = server[.sqlState].map { " [SQLSTATE \($0)]" } ?? ""
            return ServerText.clean(message + state)
        }
        if let underlying = error.underlying { return connectionDetail(underlying) }
        return "\(error.code)"
    }

    /// A connection failure in plain words. The library's own descriptions nest parentheses unevenly
    /// ("connect(descriptor:addr:size:): No such file or directory) (errno: 2)"), and they end up after the
    /// project's sentence.
    static func connectionDetail(_ error: any Error) -> String {
        switch error {
        case let error as NIOConnectionError:
            if let dns = error.dnsAError ?? error.dnsAAAAError {
                return "cannot resolve \(error.host): " + connectionDetail(dns)
            }
            let attempts = error.connectionErrors.map { failure in
                let address = failure.target.ipAddress.map { "\($0):\(failure.target.port ?? error.port)" } ?? error.host
                return address + ": " + connectionDetail(failure.error)
            }
            return attempts.isEmpty ? "no address of \(error.host) answered" : attempts.joined(separator: "; ")
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)) + ", errno \(error.errnoCode)"
        case let error as ChannelError:
            if case .connectTimeout(let limit) = error { return "no connection within \(limit)" }
            return ServerText.clean("\(error)")
        default:
            return ServerText.clean(String(describing: error))
        }
    }

    /// The server's SQLSTATE, when the error is the server's.
    static func sqlState(_ error: any Error) -> String? {
        if let error = error as? PostgresTransactionError {
            return sqlState(error.closureError ?? error.commitError ?? error.beginError ?? error)
        }
        return (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}

extension PostgresRowSequence {
    /// The rows, each checked to have at least `columns` columns before it is decoded.
    ///
    /// postgres-nio's `decode` traps (a precondition) on a row with fewer columns than the tuple it is decoded
    /// into, and a server's reply is not trusted to match the query: a hostile or broken server must get an error,
    /// not crash griptrack (found by the `pgreply` fuzzer: Fuzz/Corpus/pgreply/regression-fewer-columns).
    func checked(columns: Int) -> AsyncThrowingMapSequence<PostgresRowSequence, PostgresRow> {
        map { row in
            guard row.count >= columns else {
                throw SyncError.server(
                    operation: "read the server's answer",
                    detail: "a row has \(row.count) columns where the query asked for \(columns)")
            }
            return row
        }
    }
}
