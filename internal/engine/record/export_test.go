package record

import "time"

// EncoderCPU is the CPU time ffmpeg used for a finished recording (for
// the benchmarks).
func EncoderCPU(r *Recording) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.encCPU
}
