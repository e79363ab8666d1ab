// RR-9459 Fig. 1: the Water Tank (the listing is clean in the seed text).
model WaterTank
  constant Real xmax = 1.0; // max water quantity
  constant Real xmin = 0.0; // min water quatity
  Real x(start=(xmin+xmax)/2,fixed=true); // stored water mass
  Real y; // default output flow
  Real yh; // output flow correction, when tank is full
  Real yl; // output flow correction, when tank is empty
  Real z; // input flow
  Real sh; // parameter of the full-tank CC
  Real sl; // parameter of the empty-tank CC
  Boolean bh(start=false,fixed=true); // mode full-tank
  Boolean bl(start=false,fixed=true); // mode empty-tank
  // bh and bl satisfy assertion not (bh and bl)
equation
  // default output flow law
  /* e0: */ y = defaultOutputFlow(time);
  // input flow law
  /* e1: */ z = inputFlow(time);
  // tank level differential equation
  /* e2: */ der(x) = z + yl - yh - y;
  // Complementarity condition 0 <= xmax - x # yh >= 0
 bh = (sh >= 0);
  /* eh1: */ sh = if bh then yh else x - xmax;
  /* eh2: */ 0 = if bh then x - xmax else yh;
  // complementarity condition 0 <= x - xmin # yl >= 0
 bl = (sl >= 0);
  /* el1: */ sl = if bl then yl else xmin - x;
  /* el2: */ 0 = if bl then xmin - x else yl;
end WaterTank;
