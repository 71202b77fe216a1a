/// The socket protocol's version, sent in VERSION (docs/protocol.md): the one place it is stated.
///
/// The minor number grows with additions a client may ignore; the major number with changes that break clients.
package enum ProtocolVersion {
    package static let major = 1
    package static let minor = 11
}
