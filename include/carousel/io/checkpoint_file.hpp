// The on-disk container for checkpoints: a fixed header that identifies, versions and
// checksums an opaque payload (the Boost.Serialization archive of the sampler state).
//
// Layout, all integers little-endian:
//   offset  0  8 bytes  magic "CRSLCKPT"
//   offset  8  uint32   format version (kCheckpointFormatVersion)
//   offset 12  uint32   reserved, 0
//   offset 16  uint64   payload length in bytes
//   offset 24  uint64   CRC-64/XZ of the payload
//   offset 32           payload
// The checksum lets a resume refuse a damaged file with exit code 5 instead of feeding
// garbage to the deserializer; the version lets an old build refuse a newer file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace carousel::io {

inline constexpr std::uint32_t kCheckpointFormatVersion = 1;
inline constexpr std::size_t kCheckpointHeaderSize = 32;

// The file name for `iteration`: "checkpoint-<iteration, zero-padded to 10 digits>.ckpt".
std::string CheckpointFileName(std::uint64_t iteration);

// Creates `dir` if needed and writes dir/CheckpointFileName(iteration) atomically
// (replacing a file of the same iteration), then deletes all but the newest `keep` - 1
// checkpoints with a lower iteration (`keep` below 1 acts as 1), and stale temp files of
// crashed writers. Checkpoints with a higher iteration (left by a run that was resumed
// from an older checkpoint) are neither counted nor deleted. Assumes one writer per
// directory (rank 0). Returns the path written. Throws carousel::OutputError on failure.
std::string WriteCheckpoint(const std::string& dir, std::uint64_t iteration,
                            std::string_view payload, int keep = 2);

// Reads and verifies a checkpoint file and returns its payload. Throws
// carousel::CheckpointError(path, problem) if the file is missing or unreadable,
// truncated, not a Carousel checkpoint, from a newer format version, or fails the
// checksum.
std::string ReadCheckpoint(const std::string& path);

// Path of the checkpoint with the highest iteration number in `dir`, or std::nullopt if
// `dir` has none or does not exist. Does not open or verify the file; falling back to an
// older checkpoint when the newest is corrupt is the caller's decision.
std::optional<std::string> LatestCheckpoint(const std::string& dir);

// Paths of every checkpoint in `dir`, newest (highest iteration) first; empty if `dir` has
// none or does not exist. For a resume that falls back past a damaged newest file.
std::vector<std::string> CheckpointsNewestFirst(const std::string& dir);

// Deletes every checkpoint in `dir` and the temp files of crashed writers (for a fresh
// run given --overwrite); other files stay. Returns how many files it deleted. Throws
// carousel::OutputError on failure.
std::size_t RemoveCheckpoints(const std::string& dir);

}  // namespace carousel::io
