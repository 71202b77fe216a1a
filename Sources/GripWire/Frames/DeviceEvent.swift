/// Something a device said that is not a force sample.
public enum DeviceEvent: Sendable, Equatable {
    /// Battery voltage in millivolts (reply to the battery command).
    case batteryMillivolts(UInt32)
    /// Firmware version string (reply to the version command).
    case firmwareVersion(String)
    /// Device identifier (reply to the id command).
    case deviceIdentifier(UInt64)
    /// A command response that could not be tied to a command we saw being sent; the raw payload.
    case commandResponse([UInt8])
    /// The device warned that its battery is low; a disconnect usually follows.
    case lowPowerWarning
}

/// What decoding one frame produced.
public enum FrameOutcome: Sendable, Equatable {
    /// The frame carried this many samples, all handed to the sample callback.
    case samples(Int)
    /// The frame carried a non-sample message.
    case event(DeviceEvent)
    /// The frame was rejected; nothing was emitted.
    case rejected(FrameRejection)
}

/// A command written to the device's control point.
public enum DeviceCommand: String, Sendable, CaseIterable, Codable {
    case tare, startMeasurement, stopMeasurement, battery, version, identifier, sleep
}
