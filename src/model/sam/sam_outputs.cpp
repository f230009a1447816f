#include "carousel/model/sam/sam_outputs.hpp"

#include "carousel/io/atomic_file.hpp"
#include "carousel/io/text_output.hpp"

namespace carousel::io {

void WriteSamTrace(const std::string& path, const std::string& comments,
                   const std::vector<SamTraceRow>& rows) {
  std::string out = comments +
                    "iter,seconds,log_perplexity,log_perplexity_sample,log_perplexity_se,samples,"
                    "theta_acceptance,theta_step,thermostat\n";
  for (const SamTraceRow& r : rows) {
    out += std::to_string(r.iteration);
    for (double v : {r.seconds, r.log_perplexity, r.log_perplexity_sample, r.log_perplexity_se}) {
      out += ',';
      AppendCsvNumber(out, v);
    }
    out += ',' + std::to_string(r.samples);
    for (double v : {r.theta_acceptance, r.theta_step, r.thermostat}) {
      out += ',';
      AppendCsvNumber(out, v);
    }
    out += '\n';
  }
  WriteFileAtomically(path, out);
}

}  // namespace carousel::io
