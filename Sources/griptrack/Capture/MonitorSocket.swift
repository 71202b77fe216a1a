import Glibc
import GripSystem

// The kernel's HCI monitor channel, read as btmon reads it: the only raw calls of `griptrack capture`.
//
// Invariants: one socket per capture, opened and closed by the one thread that runs the command; each `read`
// returns exactly one monitor frame (the socket is a datagram socket: the kernel never merges or splits frames),
// so parsing stays in GripWire's `MonitorFrame`. errno is read right after each call, before anything else can
// change it.

/// Why the monitor socket could not be opened (`griptrack capture` exits 4 with the description).
enum MonitorSocketError: Error, CustomStringConvertible {
    /// EPERM/EACCES: the process lacks CAP_NET_RAW.
    case notPermitted(call: String, errno: Int32)
    /// EAFNOSUPPORT and friends: the kernel has no Bluetooth (or no HCI sockets).
    case noBluetooth(errno: Int32)
    /// Anything else, with the call and errno for the report.
    case failed(call: String, errno: Int32)

    var description: String {
        switch self {
        case .notPermitted(let call, let code):
            "reading the kernel's Bluetooth monitor needs the CAP_NET_RAW capability (\(call): \(errorText(code))). "
                + "Run it with sudo, or allow it once: `sudo setcap cap_net_raw+ep $(command -v griptrack)`."
        case .noBluetooth(let code):
            "this kernel has no Bluetooth support (socket(AF_BLUETOOTH): \(errorText(code))). On the Pi, check "
                + "that the bluetooth module is loaded (`sudo modprobe bluetooth`) and that "
                + "`bluetoothctl list` shows an adapter; a container needs the host's Bluetooth."
        case .failed(let call, let code):
            "could not open the Bluetooth monitor (\(call): \(errorText(code)))."
        }
    }
}

/// The text of an errno (strerror), for messages.
func errorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// The kernel's HCI socket ABI, as BlueZ's `<bluetooth/bluetooth.h>` and `<bluetooth/hci.h>` define it
/// (libbluetooth-dev; `MonitorSocketABITests` checks these against the installed headers).
///
/// Why not import the headers as a C module: they include `<sys/socket.h>` themselves, and in a whole-module
/// (release) build the Clang importer then credits `SOCK_STREAM` and friends to that module, so every other file of
/// the target that uses them without importing it stops compiling.
enum HCISocketABI {
    static let addressFamily: Int32 = 31  // AF_BLUETOOTH
    static let protocolHCI: Int32 = 1  // BTPROTO_HCI
    static let deviceNone: UInt16 = 0xFFFF  // HCI_DEV_NONE: every adapter
    static let channelMonitor: UInt16 = 2  // HCI_CHANNEL_MONITOR

    /// `struct sockaddr_hci { sa_family_t hci_family; unsigned short hci_dev; unsigned short hci_channel; }`:
    /// three native-endian u16, 6 bytes.
    struct Address {
        var family = sa_family_t(HCISocketABI.addressFamily)
        var device = HCISocketABI.deviceNone
        var channel = HCISocketABI.channelMonitor
    }
}

/// An open `HCI_CHANNEL_MONITOR` socket bound to `HCI_DEV_NONE` (every adapter).
final class MonitorSocket {
    /// The largest frame: the 6-byte header and a payload of at most 65535 bytes (`len` is a u16).
    static let maximumFrame = 6 + 65535

    let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: MonitorSocket.maximumFrame)

    /// `socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI)` and `bind` to the monitor channel.
    /// - Throws: `MonitorSocketError`.
    init() throws(MonitorSocketError) {
        let descriptor = socket(
            HCISocketABI.addressFamily, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            HCISocketABI.protocolHCI)
        if descriptor < 0 {
            let code = errno
            switch code {
            case EPERM, EACCES: throw .notPermitted(call: "socket", errno: code)
            case EAFNOSUPPORT, EPROTONOSUPPORT, ESOCKTNOSUPPORT: throw .noBluetooth(errno: code)
            default: throw .failed(call: "socket", errno: code)
            }
        }
        var address = HCISocketABI.Address()
        // SAFETY: `address` is a live 6-byte sockaddr_hci for the duration of the call, and the length passed is its
        // own size, so the kernel reads only that struct.
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<HCISocketABI.Address>.size))
            }
        }
        if bound != 0 {
            let code = errno
            close(descriptor)
            switch code {
            case EPERM, EACCES: throw .notPermitted(call: "bind", errno: code)
            default: throw .failed(call: "bind", errno: code)
            }
        }
        self.descriptor = descriptor
    }

    /// Adopts a socket that delivers one frame per `recv` as the monitor channel does (tests use one end of an
    /// `AF_UNIX` `SOCK_SEQPACKET` pair); it is closed with this object.
    /// - Parameter descriptor: the socket.
    init(adopting descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Reads one frame without blocking.
    /// - Parameter body: called with the frame's bytes, valid only during the call.
    /// - Returns: true when a frame was read, false when none is waiting (EAGAIN) or a signal interrupted.
    /// - Throws: `MonitorSocketError.failed` on any other read error.
    func readFrame(_ body: (UnsafeRawBufferPointer) -> Void) throws(MonitorSocketError) -> Bool {
        // SAFETY: `recv` writes at most `buffer.count` bytes into the array's own storage, and the buffer handed
        // to `body` covers only the `count` bytes it returned; neither pointer escapes the closure.
        let result: Result<Bool, MonitorSocketError> = buffer.withUnsafeMutableBytes { storage in
            let count = SystemCall.retryingOnInterrupt {
                recv(descriptor, storage.baseAddress, storage.count, Int32(MSG_DONTWAIT))
            }
            if count < 0 {
                let code = errno
                if code == EAGAIN || code == EWOULDBLOCK { return .success(false) }
                return .failure(.failed(call: "recv", errno: code))
            }
            body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
            return .success(true)
        }
        return try result.get()
    }

    deinit {
        close(descriptor)
    }
}
