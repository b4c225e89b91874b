// Whether an MVMEXE task and a LoadIMC task may run at the same time (docs/timing.md "Command
// processor"): the MVMEXE datapath has no MVM (it reads no IMC), or both name the same matrix_id
// (the LoadIMC begins no residency) and their tile spans are disjoint. A span is [lo, hi] of the
// affine tile walk: tile_base plus, per loop, min(0, (size - 1) * step) .. max(0, (size - 1) * step)
// (MVM: kb and the ndims used output dims; LoadIMC: t0 and t1). common/ref imc_tasks_apart is the
// same rule for the TLM and the compiler. Combinational; the command processor evaluates it on
// its descriptor buffers (the running task's and the checked one's).
module ax_imc_apart
  import axcore_pkg::*;
(
  input  logic          has_mvm_i,   // the MVMEXE datapath's header.has_main
  // verilator lint_off UNUSEDSIGNAL
  input  mvm_desc_t     mvm_i,       // reserved words unused
  input  loadimc_desc_t li_i,        // magic, L1 fields and reserved words unused
  // verilator lint_on UNUSEDSIGNAL
  output logic          apart_o
);
  // (n - 1) * step for n >= 1 (a size of 0 counts as 1: such a descriptor never runs)
  function automatic logic signed [31:0] ext(input logic [15:0] n, input logic signed [7:0] step);
    logic signed [31:0] m;
    m = (n == '0) ? 32'sd0 : $signed({16'b0, n}) - 32'sd1;
    return m * 32'(step);
  endfunction
  function automatic logic signed [31:0] lo_of(input logic signed [31:0] e);
    return (e < 0) ? e : 32'sd0;
  endfunction
  function automatic logic signed [31:0] hi_of(input logic signed [31:0] e);
    return (e > 0) ? e : 32'sd0;
  endfunction

  logic signed [31:0] e_mvm [5];
  logic signed [31:0] e_li [2];
  logic signed [31:0] m_lo, m_hi, l_lo, l_hi;
  always_comb begin
    e_mvm[0] = ext(mvm_i.k_blocks, mvm_i.k_stride);
    e_mvm[1] = ext(mvm_i.o0_size, mvm_i.o0_tstride);
    e_mvm[2] = (mvm_i.ndims > 3'd1) ? ext(mvm_i.o1_size, mvm_i.o1_tstride) : 32'sd0;
    e_mvm[3] = (mvm_i.ndims > 3'd2) ? ext(mvm_i.o2_size, mvm_i.o2_tstride) : 32'sd0;
    e_mvm[4] = (mvm_i.ndims > 3'd3) ? ext(mvm_i.o3_size, mvm_i.o3_tstride) : 32'sd0;
    e_li[0]  = ext({8'b0, li_i.d0_size}, li_i.d0_tstride);
    e_li[1]  = ext({8'b0, li_i.d1_size}, li_i.d1_tstride);
    m_lo = $signed({24'b0, mvm_i.tile_base});
    m_hi = m_lo;
    for (int unsigned k = 0; k < 5; k++) begin
      m_lo = m_lo + lo_of(e_mvm[k]);
      m_hi = m_hi + hi_of(e_mvm[k]);
    end
    l_lo = $signed({24'b0, li_i.tile_base}) + lo_of(e_li[0]) + lo_of(e_li[1]);
    l_hi = $signed({24'b0, li_i.tile_base}) + hi_of(e_li[0]) + hi_of(e_li[1]);
    apart_o = !has_mvm_i || (mvm_i.matrix_id == li_i.matrix_id && (l_hi < m_lo || m_hi < l_lo));
  end
endmodule
