package io.scbf;

/**
 * An immutable reading of a {@link ScalableSplitCountingBloomFilter}'s state.
 *
 * @param filters sub-filters now (grows as the newest fills; compaction brings it back to 1)
 * @param residue removes skipped because the key tested positive in several sub-filters; they raise
 *     the false-positive rate (never cause false negatives) until the next compaction
 * @param designFpr compound false-positive rate the sub-filters were sized for, 1 - prod(1 - P_i)
 * @param estimatedFpr compound false-positive rate now, from the sub-filters' fill
 * @param newestFill highest slice fill of the newest sub-filter (a new one is added when its mean
 *     fill reaches 1/2)
 * @param bytes native memory owned by the filter
 * @param positions counters over all sub-filters
 * @param saturatedCounters counters stuck at their maximum
 * @param adds successful adds since creation, the last clear or compaction
 * @param removes successful removes (including residue) since then
 * @param needsCompaction residue or the sub-filter count passed their thresholds
 */
public record ScalableFilterStats(
    int filters,
    long residue,
    double designFpr,
    double estimatedFpr,
    double newestFill,
    long bytes,
    long positions,
    long saturatedCounters,
    long adds,
    long removes,
    boolean needsCompaction) {}
