/// Why a protocol's notation cannot be read: what is wrong, and the column (1-based character) where it starts.
public struct ProtocolNotationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based character position of the offending word.
    public var column: Int
    /// What is wrong and what to write instead.
    public var message: String

    public init(column: Int, message: String) {
        self.column = column
        self.message = message
    }

    /// `column 12: "7-3" is not work:rest; write seconds as 7:3`.
    public var description: String { "column \(column): \(message)" }
}
