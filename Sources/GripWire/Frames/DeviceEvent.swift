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
    /// The frame carried this many samples (at least one), all handed to the sample callback.
    case samples(Int)
    /// The frame was taken and holds nothing to report: a piece of a frame still to come (a byte-stream device's),
    /// an acknowledgement, a response griptrack does not use (a clone's vendor answer, a calibration line).
    case consumed
    /// The frame carried a non-sample message.
    case event(DeviceEvent)
    /// The frame was rejected; nothing was emitted.
    case rejected(FrameRejection)
}

/// A command written to the device's control point.
public enum DeviceCommand: String, Sendable, CaseIterable, Codable {
    case tare, startMeasurement, stopMeasurement, battery, version, identifier, sleep
    /// Sets the device's sampling rate to the one its profile names (the CTS500's A/D rate).
    case sampleRate
    /// Asks the device for its own calibration table (the Motherboard's `C`).
    case readCalibration
}
