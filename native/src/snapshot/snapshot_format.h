/* Internal: constants of the snapshot format shared by the SCBF and the
 * scalable SCBF codecs (byte layout in docs/snapshot-format.md). */
#ifndef SCBF_SNAPSHOT_FORMAT_H
#define SCBF_SNAPSHOT_FORMAT_H

#define SNAP_VERSION        1u
#define SCBF_SNAP_MAGIC     "SCBF"
#define SCBF_SNAP_HEADER    56u /* bytes before the counter words */
#define SSCBF_SNAP_MAGIC    "SSCB"
#define SSCBF_SNAP_HEADER   88u /* bytes before the first sub-filter */
#define SNAP_CHECKSUM_BYTES 8u
#endif
