// MVM (spec mvm_desc, common/ref run_mvm): per output (o3 outermost .. o0 innermost) K chained
// tile-ops acc(int32x64) += x(int8x64) . IMC[tile], one per cycle, tile = tile_base + kb*k_stride
// + sum(ok * ok_tstride); kb = 0 resets the accumulator in the same cycle. The output is pushed
// mvm_latency cycles after its last tile-op; the next output's first tile-op may issue in the
// next cycle. An output chain starts only when a slot of the output FIFO (stream_depth) is
// reserved for it. A tile outside the IMC stops the task with IMC_RANGE; a stale tile is counted.
module ax_mvm
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
  import ax_core_pkg::*;
(
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
  // IMC read
  output logic [TILE_AW-1:0] imc_tile_o,
  output logic [7:0]  imc_id_o,
  input  logic [IMC_TILE_ROWS*ROW_BITS-1:0] imc_data_i,
  output logic        imc_count_o,
  // output stream (int32x64)
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output strm_t       out_data_o
);
  localparam int unsigned CntW = $clog2(STREAM_DEPTH + 1);
`ifndef SYNTHESIS
  initial assert (MVM_ROWS_PER_CYCLE == IMC_TILE_ROWS)
    else $fatal(1, "ax_mvm: only mvm_rows_per_cycle = 64 (one tile-op per cycle) is built");
  initial assert (MVM_LATENCY >= 1) else $fatal(1, "ax_mvm: mvm_latency must be >= 1");
`endif

  logic        active_q, active_d, issued_q, issued_d, fault_q, fault_d;
  logic [15:0] kb_q, kb_d;
  logic [3:0][15:0] o_q, o_d, osz;
  logic [CntW-1:0] infl_q, infl_d, fifo_cnt;
  logic signed [31:0] tile;
  logic        credit, working, op, last_kb, last_out, fault, push;

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

  assign credit     = (kb_q != '0) || ((32'(fifo_cnt) + 32'(infl_q)) < STREAM_DEPTH);
  assign working    = active_q && !issued_q && !fault_q;
  assign fault      = working && in_valid_i && credit && !((tile >= 0) && (tile < 32'(IMC_TILES)));
  assign in_ready_o = working && credit && !fault;
  assign op         = in_valid_i && in_ready_o;
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
    if (op) begin
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
    infl_d = infl_q + CntW'(op && kb_q == '0) - CntW'(push);
    if (active_q && (issued_q || fault_q) && infl_q == '0) active_d = 1'b0;
    if (start_i) begin
      active_d = 1'b1;
      issued_d = 1'b0;
      fault_d  = 1'b0;
      kb_d     = '0;
      o_d      = '0;
    end
    if (abort_i) begin
      active_d = 1'b0;
      infl_d   = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      issued_q <= 1'b0;
      fault_q  <= 1'b0;
      kb_q     <= '0;
      o_q      <= '0;
      infl_q   <= '0;
    end else begin
      active_q <= active_d;
      issued_q <= issued_d;
      fault_q  <= fault_d;
      kb_q     <= kb_d;
      o_q      <= o_d;
      infl_q   <= infl_d;
    end
  end
  // 4096 MACs, lane n += sum_k x[k] * tile[k][n]; computed only in a tile-op cycle (the
  // simulation cost of an idle MVM is nil). One process per lane, so every bit select below
  // is constant: the Verilated model extracts each byte with a fixed word index and shift
  // instead of a run-time bit offset (docs/rtl.md "Simulation speed").
  logic [31:0] acc_q [PWORD_LANES];
  for (genvar n = 0; n < PWORD_LANES; n++) begin : g_lane
    always_ff @(posedge clk_i) begin
      if (op) begin
        logic [31:0] s;
        s = (kb_q == '0) ? 32'd0 : acc_q[n];
        for (int unsigned k = 0; k < IMC_TILE_ROWS; k++) begin
          s = s + 32'($signed(in_data_i.data[8*k +: 8]) * $signed(imc_data_i[ROW_BITS*k + 8*n +: 8]));
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

  // push pipeline: the finished accumulator, MVM_LATENCY cycles after its last tile-op
  logic [MVM_LATENCY-1:0] v_q;
  strm_t                  res;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v_q <= '0;
    else if (abort_i) v_q <= '0;
    else if (MVM_LATENCY == 1) v_q <= MVM_LATENCY'(op && last_kb);
    else v_q <= {v_q[MVM_LATENCY-2:0], op && last_kb};
  end
  if (MVM_LATENCY == 1) begin : g_lat1
    assign res.data = acc_packed;
  end else begin : g_latn
    elem_t [MVM_LATENCY-2:0] d_q;
    always_ff @(posedge clk_i) begin
      if (v_q[0]) d_q[0] <= acc_packed;   // the finished accumulator, one cycle after its chain
      for (int unsigned i = 1; i < MVM_LATENCY - 1; i++) d_q[i] <= d_q[i-1];
    end
    assign res.data = d_q[MVM_LATENCY-2];
  end
  assign res.pad = 1'b0;
  assign push    = v_q[MVM_LATENCY-1] && !abort_i;

  logic unused_ready;
  ax_fifo #(.T(strm_t), .Depth(STREAM_DEPTH)) u_out (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .clr_i       (abort_i),
    .in_valid_i  (push),
    .in_ready_o  (unused_ready),
    .in_data_i   (res),
    .out_valid_o (out_valid_o),
    .out_ready_i (out_ready_i),
    .out_data_o  (out_data_o),
    .count_o     (fifo_cnt)
  );

  assign busy_o = active_q;
  assign done_o = active_q && issued_q && !fault_q && infl_q == '0;
  always_comb begin
    err_o           = '0;
    err_o.valid     = fault;
    err_o.code      = ERROR_CODE_IMC_RANGE;
    err_o.addr      = 32'(tile);
    act_o           = '0;
    act_o.busy      = op;
    act_o.stall_in  = working && !in_valid_i && credit;
    act_o.stall_out = working && !credit;
  end

  logic unused;
  assign unused = in_data_i.pad ^ (^in_data_i.data[ELEM_BITS-1:ROW_BITS]);
endmodule
