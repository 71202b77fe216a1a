// CMosquitto: Debian's libmosquitto (the Eclipse Mosquitto MQTT client) for Swift. Not API: only
// GripMQTT/Internal/LibMosquitto.swift uses it.
//
// Why this header exists: the enum constants GripMQTT passes (MOSQ_ERR_*, MOSQ_OPT_*, MOSQ_LOG_*) are re-exported as plain
// ints, so the Swift side never depends on how ClangImporter names an unnamed C enum's cases.
#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H

#include <mosquitto.h>

static const int CMOSQ_ERR_SUCCESS = MOSQ_ERR_SUCCESS;
static const int CMOSQ_ERR_NO_CONN = MOSQ_ERR_NO_CONN;
static const int CMOSQ_OPT_PROTOCOL_VERSION = MOSQ_OPT_PROTOCOL_VERSION;
static const int CMOSQ_PROTOCOL_V311 = MQTT_PROTOCOL_V311;
static const int CMOSQ_LOG_ERR = MOSQ_LOG_ERR;

#endif
