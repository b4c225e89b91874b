// MVM (spec mvm_desc, common/ref run_mvm): per output (o3 outermost .. o0 innermost) K chained
// tile-ops acc(int32x64) += x(int8x64) . IMC[tile], tile = tile_base + kb*k_stride
// + sum(ok * ok_tstride); kb = 0 resets the accumulator. Rows (mvm_rows_per_cycle) tile rows x 64
// columns of MACs: a tile-op pops its x element in its first cycle and takes 64/Rows cycles (one
// row group per cycle); the next tile-op may pop in the cycle after its last group. The output is
// pushed mvm_latency cycles after the last cycle of its last tile-op (docs/timing.md). An output
// chain starts only when a slot of the output FIFO (stream_depth) is reserved for it. A tile
// outside the IMC stops the task with IMC_RANGE; a stale tile is counted (once per tile-op).
// Pipeline: the tile-op's group g is read from the IMC (registered, block RAM) in its issue cycle
// and multiplied in the next one; mvm_latency >= 2 covers that stage.
module ax_mvm
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
#(
  parameter int unsigned Rows = MVM_ROWS_PER_CYCLE
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic        abort_i,
  // verilator lint_off UNUSEDSIGNAL
  input  mvm_desc_t   desc_i,       // reserved words unused
  // verilator lint_on UNUSEDSIGNAL
  output logic        busy_o,
  output logic        done_o,
  output unit_err_t   err_o,
  output act_t        act_o,
  // input stream (int8x64 elements)
  input  logic        in_valid_i,
  output logic        in_ready_o,
  input  strm_t       in_data_i,
  // IMC read (ax_imc): imc_count_o starts a tile-op of imc_tile_o; its Rows rows of group g
  // arrive on imc_data_i g + 1 cycles later
  output logic [TILE_AW-1:0] imc_tile_o,
  output logic [7:0]  imc_id_o,
  input  logic [IMC_TILE_ROWS*ROW_BITS-1:0] imc_data_i,
  output logic        imc_count_o,
  // output stream (int32x64)
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output strm_t       out_data_o
);
  localparam int unsigned Groups = IMC_TILE_ROWS / Rows;   // cycles per tile-op
  localparam int unsigned GW     = (Groups > 1) ? $clog2(Groups) : 1;
`ifndef SYNTHESIS
  initial assert (Rows >= 4 && Rows <= IMC_TILE_ROWS && (Rows & (Rows - 1)) == 0)
    else $fatal(1, "ax_mvm: Rows (mvm_rows_per_cycle) must be a power of two in [4, 64]");
  initial assert (MVM_LATENCY >= 2)
    else $fatal(1, "ax_mvm: mvm_latency must be >= 2 (the IMC read is registered)");
`endif

  logic        active_q, active_d, issued_q, issued_d, fault_q, fault_d;
  logic [15:0] kb_q, kb_d;
  logic [3:0][15:0] o_q, o_d, osz;
  logic signed [31:0] tile;
  logic        credit, working, op, issue, step_end, last_kb, last_out, fault, mid;
  logic        tail_credit, drained;

  always_comb begin
    for (int unsigned k = 0; k < 4; k++) osz[k] = 16'd1;
    if (desc_i.ndims >= 3'd1) osz[0] = desc_i.o0_size;
    if (desc_i.ndims >= 3'd2) osz[1] = desc_i.o1_size;
    if (desc_i.ndims >= 3'd3) osz[2] = desc_i.o2_size;
    if (desc_i.ndims >= 3'd4) osz[3] = desc_i.o3_size;
    tile = 32'(desc_i.tile_base) + 32'(desc_i.k_stride) * $signed({16'b0, kb_q}) +
           32'(desc_i.o0_tstride) * $signed({16'b0, o_q[0]}) +
           32'(desc_i.o1_tstride) * $signed({16'b0, o_q[1]}) +
           32'(desc_i.o2_tstride) * $signed({16'b0, o_q[2]}) +
           32'(desc_i.o3_tstride) * $signed({16'b0, o_q[3]});
    last_kb  = (kb_q + 16'd1 >= desc_i.k_blocks);
    last_out = 1'b1;
    for (int unsigned k = 0; k < 4; k++) if (o_q[k] + 16'd1 < osz[k]) last_out = 1'b0;
  end

  // row groups: op issues group 0 (pops x), `mid` the groups 1 .. Groups-1 that follow it
  if (Groups == 1) begin : g_one
    assign mid      = 1'b0;
    assign step_end = op;
  end else begin : g_groups
    logic [GW-1:0] grp_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) grp_q <= '0;
      else if (abort_i || start_i) grp_q <= '0;
      else if (issue) grp_q <= grp_q + GW'(1);
    end
    assign mid      = (grp_q != '0);
    assign step_end = mid && (grp_q == GW'(Groups - 1));
  end

  assign credit     = (kb_q != '0) || tail_credit;
  assign working    = active_q && !issued_q && !fault_q && !mid;
  assign fault      = working && in_valid_i && credit && !((tile >= 0) && (tile < 32'(IMC_TILES)));
  assign in_ready_o = working && credit && !fault;
  assign op         = in_valid_i && in_ready_o;
  assign issue      = op || mid;
  assign imc_tile_o = TILE_AW'(tile);
  assign imc_id_o   = desc_i.matrix_id;
  assign imc_count_o = op;

  always_comb begin
    logic carry;
    carry    = 1'b0;
    active_d = active_q;
    issued_d = issued_q;
    fault_d  = fault_q || fault;
    kb_d     = kb_q;
    o_d      = o_q;
    if (step_end) begin
      if (last_kb) begin
        kb_d  = '0;
        carry = 1'b1;
        for (int unsigned k = 0; k < 4; k++) begin
          if (carry) begin
            if (o_q[k] + 16'd1 < osz[k]) begin
              o_d[k] = o_q[k] + 16'd1;
              carry  = 1'b0;
            end else o_d[k] = '0;
          end
        end
        if (last_out) issued_d = 1'b1;
      end else kb_d = kb_q + 16'd1;
    end
    if (active_q && (issued_q || fault_q) && drained) active_d = 1'b0;
    if (start_i) begin
      active_d = 1'b1;
      issued_d = 1'b0;
      fault_d  = 1'b0;
      kb_d     = '0;
      o_d      = '0;
    end
    if (abort_i) active_d = 1'b0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      issued_q <= 1'b0;
      fault_q  <= 1'b0;
      kb_q     <= '0;
      o_q      <= '0;
    end else begin
      active_q <= active_d;
      issued_q <= issued_d;
      fault_q  <= fault_d;
      kb_q     <= kb_d;
      o_q      <= o_d;
    end
  end

  // MAC stage, the cycle after a group's issue (its IMC rows are on imc_data_i then). x is held
  // in xs_q, shifted down by one group after each group, so the MACs use constant byte selects.
  logic mac_q, first_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mac_q   <= 1'b0;
      first_q <= 1'b0;
    end else begin
      mac_q   <= issue && !abort_i;
      first_q <= op && kb_q == '0;
    end
  end
  row_t xs_q;
  always_ff @(posedge clk_i) begin
    if (op) xs_q <= in_data_i.data[ROW_BITS-1:0];
    else if (mid) xs_q <= xs_q >> (8 * Rows);
  end

  // Rows x 64 MACs, lane n += sum_k x[g*Rows + k] * tile[g*Rows + k][n]; computed only in a MAC
  // cycle (the simulation cost of an idle MVM is nil). One process per lane, so every bit select
  // below is constant: the Verilated model extracts each byte with a fixed word index and shift
  // instead of a run-time bit offset (docs/rtl.md "Simulation speed").
  logic [31:0] acc_q [PWORD_LANES];
  for (genvar n = 0; n < PWORD_LANES; n++) begin : g_lane
    always_ff @(posedge clk_i) begin
      if (mac_q) begin
        logic [31:0] s;
        s = first_q ? 32'd0 : acc_q[n];
        for (int unsigned k = 0; k < Rows; k++) begin
          s = s + 32'($signed(xs_q[8*k +: 8]) * $signed(imc_data_i[ROW_BITS*k + 8*n +: 8]));
        end
        acc_q[n] <= s;
      end
    end
  end
  elem_t acc_packed;
  always_comb begin
    acc_packed = '0;
    for (int unsigned n = 0; n < PWORD_LANES; n++) acc_packed[32*n +: 32] = acc_q[n];
  end

  // result tail: a chain reserves its output slot when it pops its first x; the finished
  // accumulator enters the FIFO MVM_LATENCY cycles after the issue of the chain's last group (its
  // MAC is the cycle after, the accumulator holds the sum one cycle later: sampled then)
  ax_result_tail #(.T(strm_t), .Depth(STREAM_DEPTH), .Stages(MVM_LATENCY), .Sample(2)) u_tail (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .abort_i     (abort_i),
    .reserve_i   (op && kb_q == '0),
    .valid_i     (step_end && last_kb),
    .data_i      ('{pad: 1'b0, data: acc_packed}),
    .credit_o    (tail_credit),
    .drained_o   (drained),
    .out_valid_o (out_valid_o),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data_o)
  );

  assign busy_o = active_q;
  assign done_o = active_q && issued_q && !fault_q && drained;
  always_comb begin
    err_o           = '0;
    err_o.valid     = fault;
    err_o.code      = ERROR_CODE_IMC_RANGE;
    err_o.addr      = 32'(tile);
    act_o           = '0;
    act_o.busy      = issue;
    act_o.stall_in  = working && !in_valid_i && credit;
    act_o.stall_out = working && !credit;
  end

  logic unused;
  assign unused = in_data_i.pad ^ (^in_data_i.data[ELEM_BITS-1:ROW_BITS]);
  if (Rows < IMC_TILE_ROWS) begin : g_unused_rows
    logic unused_rows;
    assign unused_rows = ^imc_data_i[IMC_TILE_ROWS*ROW_BITS-1:Rows*ROW_BITS];
  end
endmodule
