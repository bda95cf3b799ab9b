// Writes the seed corpus of the fuzz targets (fuzz/corpus/<target>/) from the
// project's own encoders, so the seeds are valid inputs of today's formats.
// Run it after a format change and commit the result:
//   build/bin/fuzz_make_seeds fuzz/corpus
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "common/base/cli.h"
#include "common/game/board.h"
#include "common/game/encoder.h"
#include "common/base/fileio.h"
#include "common/data/game_record.h"
#include "common/net/net_api.h"
#include "common/wire/wire.h"

namespace {

using namespace gz;

std::vector<Position> PlayedPositions(int board, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  Board b(board);
  while (static_cast<int>(out.size()) < n && !b.terminal()) {
    out.push_back(b.ToPosition());
    const auto legal = b.LegalMoves();
    b.Play(legal[rng() % legal.size()]);
  }
  return out;
}

std::string Stream(int board, const std::vector<std::string>& frames) {
  std::string s(1, static_cast<char>(board - kMinBoardSize));  // fuzz_wire's board byte
  for (const auto& f : frames) s += f;
  return s;
}

GameRecord RandomGame(int board, uint64_t seed) {
  std::mt19937_64 rng(seed);
  GameRecord rec;
  rec.board_size = board;
  rec.seed = static_cast<int64_t>(seed);
  Board b(board);
  while (!b.terminal()) {
    const auto legal = b.LegalMoves();
    std::vector<float> visits(board * board, 0.0f);
    for (int m : legal) visits[m] = 1.0f / legal.size();
    const int move = legal[rng() % legal.size()];
    rec.AddMove(b, visits, 0.25f, move, 1);
    b.Play(move);
  }
  rec.winner = static_cast<int8_t>(b.outcome() == Outcome::kDraw ? 0 : static_cast<int>(b.outcome()));
  return rec;
}

// A client's side of a session: HELLO, INFER (three 9x9 positions), PING,
// STATS, RELOAD.
std::string ClientSession() {
  wire::Hello hello;
  hello.encoder_version = kEncoderVersion;
  hello.board_size = 9;
  hello.client_name = "fuzz-seed";
  return wire::BuildFrame(wire::MsgType::kHello, 1, wire::EncodeHello(hello)) +
         wire::BuildFrame(wire::MsgType::kInfer, 2, wire::EncodeInfer(PlayedPositions(9, 3, 1), 9)) +
         wire::BuildFrame(wire::MsgType::kPing, 3, "") + wire::BuildFrame(wire::MsgType::kStats, 4, "") +
         wire::BuildFrame(wire::MsgType::kReload, 5, wire::EncodeReload("/tmp/w.gzck"));
}

// wire: a client's and a server's side of a session.
void WriteWireSeeds(const std::string& dir) {
  std::vector<EvalResult> answers(1);
  answers[0].log_policy.assign(81, -4.39f);
  answers[0].value = 0.125f;
  WriteFileAtomic(dir + "/wire/client_session", Stream(9, {ClientSession()}));
  WriteFileAtomic(dir + "/wire/server_session",
                  Stream(9, {wire::BuildFrame(wire::MsgType::kInferReply, 2, wire::EncodeInferReply(7, answers, 9)),
                             wire::BuildFrame(wire::MsgType::kPong, 3, wire::EncodeGeneration(7)),
                             wire::BuildFrame(wire::MsgType::kReloadOk, 5, wire::EncodeGeneration(8)),
                             wire::BuildFrame(wire::MsgType::kError, 6,
                                              wire::EncodeError({wire::ErrorCode::kNotReady, "no model yet"}))}));
  WriteFileAtomic(dir + "/wire/infer15", Stream(15, {wire::BuildFrame(wire::MsgType::kInfer, 9,
                                                                      wire::EncodeInfer(PlayedPositions(15, 4, 2), 15))}));
}

// frames (the server's frame reassembly): a control byte (1 + b % 3
// connections) and 8 split-seed bytes, then the stream every connection
// receives in random pieces.
std::string FramesInput(uint8_t connections, uint64_t split_seed, const std::string& stream) {
  std::string s(1, static_cast<char>(connections));
  for (int i = 0; i < 8; ++i) s += static_cast<char>((split_seed >> (8 * i)) & 0xFF);
  return s + stream;
}

// A frame header alone (its payload not written).
std::string Header(const wire::FrameHeader& h) {
  std::string bytes(wire::kHeaderSize, '\0');
  wire::EncodeHeader(h, reinterpret_cast<uint8_t*>(bytes.data()));
  return bytes;
}

void WriteFrameSeeds(const std::string& dir) {
  const std::string session = ClientSession();
  WriteFileAtomic(dir + "/frames/client_session", FramesInput(2, 1, session));
  // An INFER bigger than the 16 KiB read chunk (the buffer grows), then a PING.
  const std::string big = wire::BuildFrame(wire::MsgType::kInfer, 7, wire::EncodeInfer(PlayedPositions(15, 80, 3), 15));
  WriteFileAtomic(dir + "/frames/big_infer", FramesInput(1, 2, big + wire::BuildFrame(wire::MsgType::kPing, 8, "")));
  // Cut inside an INFER's payload: the unfinished frame stays held.
  WriteFileAtomic(dir + "/frames/truncated", FramesInput(0, 3, session.substr(0, session.size() / 2)));
  // A header announcing 1 MiB, then only a little of it.
  wire::FrameHeader h1m;
  h1m.type = wire::MsgType::kInfer;
  h1m.request_id = 9;
  h1m.payload_len = wire::kMaxPayload;
  WriteFileAtomic(dir + "/frames/announce_1mib", FramesInput(1, 4, Header(h1m) + std::string(300, '\x01')));
  // Good frames, then a header of another protocol version.
  wire::FrameHeader hv;
  hv.proto_version = 2;
  WriteFileAtomic(dir + "/frames/version_mismatch",
                  FramesInput(2, 5, wire::BuildFrame(wire::MsgType::kPing, 1, "") + Header(hv) + session));
}

void WriteRecordSeeds(const std::string& dir) {
  // game_record: finished games on two board sizes.
  WriteFileAtomic(dir + "/game_record/game5.npz", RandomGame(5, 3).ToNpzBytes());
  WriteFileAtomic(dir + "/game_record/game7.npz", RandomGame(7, 4).ToNpzBytes());
  // checkpoint: the smallest network there is.
  CreateRandomCheckpoint(dir + "/checkpoint/net5_2x1.gzck", 5, Rule::kFreestyle, 2, 1, 5, 1, 1);
  // and one with conv heads (format version 2, the "heads" field).
  CreateRandomCheckpoint(dir + "/checkpoint/conv5_2x1.gzck", 5, Rule::kFreestyle, 2, 1, 5, 1, 1, "conv");
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: fuzz_make_seeds CORPUS_DIR\n";
  CliArgs args;
  try {
    args = ParseCli(argc, argv, CliSpec{usage, {}, {}, /*allow_positional=*/true});
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "fuzz_make_seeds: %s\n%s", e.what(), usage);
    return 2;
  }
  if (args.help) {
    std::fputs(usage, stdout);
    return 0;
  }
  if (args.positional.size() != 1) {
    std::fputs(usage, stderr);
    return 2;
  }
  const std::string dir = args.positional[0];
  WriteWireSeeds(dir);
  WriteFrameSeeds(dir);
  WriteRecordSeeds(dir);
  std::printf("seeds written under %s\n", dir.c_str());
  return 0;
}
