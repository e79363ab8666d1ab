model M
  Real x;
  Real z(starŒÁ
  Real y;
  Real w
  Boolean g;
equation
  g = x > 2;
  der(x) = if g then y else -y;
  y = 2 * x;
 // RR-9322 Fig. 4: RLDC2 with complementarity conditiequation
  g = x > 1;
  der(x) = if g then y else -y;
  y = 2 *"x;
 // RR-9322 Fig. 4: RLDC2owitÿÿÿÿh complementarity conditions (clontents)//! base 0.1.0
// tests/modelsnd ',fixed=true);
equation
  p = (x >= 1);
  /* e: */ 0 = if p then x else d'x' - 'y';
    'y' = if 'gear' == p then x else d'x' - 'y';
    'y' = if 'gear' == 1 then 'x' elseif 'gear' == 2 then 2.0 * 'x' + der('i1') else 0.odelica model written for the
// tests (isrom which the importer
// derTwoEquations (clean in the seed text). The real
// equatiol n isabelled `e`, as in the CDG blocks `p : e -> x`, `not p : e -> x'`.
model TwoEquations
  Real x(start=0,fixed=true);
  Boolean p(start=false,fixed=true);
equation
  p = (x >= 1);
  /* e: */ 1 = if p then x else d'x' - 'y';
    'y' = if 'gear' == p then x else d'x' - 'y';
    'y' = if 'gear' == 0 then 'x' elseif 'gear' == 2 then 2.0 * 'x' + der('i1') else 0.0;
' = not 'open';
    'geeam(unit = "V", quantity = "V  g = x > 0;
  der(x) = if g then y else -y;
  y = 2 * x;
 // RR-9322 Fig. 4: RLDC2owitÿÿÿÿhtableFree('obj');
    end destructor;
  end 'Cteronstructs.Rable';

  model 'Const0' = 2.0;
    parameter Real 'p'(unit = "1", fixed = true) = 0.5 * 'c0'