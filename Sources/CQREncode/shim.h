// libqrencode for the QR code `griptrack web pair` prints on the terminal; not API.
#ifndef CQRENCODE_SHIM_H
#define CQRENCODE_SHIM_H

#include <qrencode.h>

#endif
