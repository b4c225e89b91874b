// Address generator of one DMA BD: visits d0..d3 (d0 innermost) over their padded extents
// (pad_before + size + pad_after, size 0 or 1 meaning unit) and gives, per word, its byte
// address and whether it is a padded position. Address = base + 4 * sum((p_k - before_k) *
// stride_k) over the dimensions, where base already includes the iteration offset.
module ax_dma_walk
  import axcore_pkg::*;
  import ax_rtl_pkg::*;
(
  input  logic                      clk_i,
  input  logic                      rst_ni,
  input  logic                      load_i,     // take a new BD (restarts the walk)
  input  dma_bd_t                   bd_i,
  input  logic signed [47:0]        base_i,     // byte address of the first word (iteration applied)
  input  logic                      step_i,     // the current word is consumed
  output logic                      active_o,   // a word is available
  output logic [DDR_ADDR_BITS-1:0]  addr_o,
  output logic                      pad_o,
  output logic                      run_first_o,
  output logic                      run_last_o,
  output logic                      last_o      // the current word is the BD's last
);
  localparam int unsigned PW = 18;  // padded extent: up to 255 + 65535 + 255

  // The walk reads only the shape fields of the BD.
  logic unused_bd;
  assign unused_bd = ^bd_i;  // reserved bits and the non-shape fields

  logic [3:0][PW-1:0]         p_q, p_d, ext_q, bef_q, size_q;
  logic [3:0][23:0]           stride_q;
  logic signed [47:0]         base_q;
  logic                       active_q, active_d;
  logic [3:0]                 wrap;

  function automatic logic [PW-1:0] unit(logic [15:0] s);
    return (s == 16'd0) ? PW'(1) : PW'(s);
  endfunction

  always_comb begin
    logic carry;
    for (int unsigned k = 0; k < 4; k++) wrap[k] = (p_q[k] == ext_q[k] - 1'b1);
    p_d      = p_q;
    active_d = active_q;
    carry    = 1'b1;
    if (step_i && active_q) begin
      if (&wrap) begin
        active_d = 1'b0;
      end else begin
        // Increment the lowest dimension that does not wrap; reset the ones below it.
        for (int unsigned k = 0; k < 4; k++) begin
          if (carry) begin
            if (wrap[k]) begin
              p_d[k] = '0;
            end else begin
              p_d[k] = p_q[k] + 1'b1;
              carry  = 1'b0;
            end
          end
        end
      end
    end
    if (load_i) begin
      p_d      = '0;
      active_d = 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      p_q      <= '0;
      active_q <= 1'b0;
      ext_q    <= '0;
      bef_q    <= '0;
      size_q   <= '0;
      stride_q <= '0;
      base_q   <= '0;
    end else begin
      p_q      <= p_d;
      active_q <= active_d;
      if (load_i) begin
        size_q   <= {unit(bd_i.d3_size), unit(bd_i.d2_size), unit(bd_i.d1_size), unit(bd_i.d0_size)};
        bef_q    <= {PW'(bd_i.d3_pad_before), PW'(bd_i.d2_pad_before), PW'(bd_i.d1_pad_before),
                     PW'(bd_i.d0_pad_before)};
        ext_q    <= {PW'(bd_i.d3_pad_before) + unit(bd_i.d3_size) + PW'(bd_i.d3_pad_after),
                     PW'(bd_i.d2_pad_before) + unit(bd_i.d2_size) + PW'(bd_i.d2_pad_after),
                     PW'(bd_i.d1_pad_before) + unit(bd_i.d1_size) + PW'(bd_i.d1_pad_after),
                     PW'(bd_i.d0_pad_before) + unit(bd_i.d0_size) + PW'(bd_i.d0_pad_after)};
        stride_q <= {bd_i.d3_stride, bd_i.d2_stride, bd_i.d1_stride, bd_i.d0_stride};
        base_q   <= base_i;
      end
    end
  end

  always_comb begin
    logic signed [47:0] off;
    off   = '0;
    pad_o = 1'b0;
    for (int unsigned k = 0; k < 4; k++) begin
      logic signed [PW:0] rel;
      rel = $signed({1'b0, p_q[k]}) - $signed({1'b0, bef_q[k]});
      if (p_q[k] < bef_q[k] || p_q[k] >= bef_q[k] + size_q[k]) pad_o = 1'b1;
      off = off + 48'(rel) * 48'($signed(stride_q[k]));
    end
    addr_o      = DDR_ADDR_BITS'(base_q + (off <<< 2));
    active_o    = active_q;
    run_first_o = (p_q[0] == '0);
    run_last_o  = wrap[0];
    last_o      = &wrap;
  end
endmodule
