/*
 * The profiling predictor: interval measurements in, votes out.
 *
 * A process measures its communication ratio CR = T_mpi/T_total over each
 * prediction interval and votes: off above the high threshold, on below
 * the low one, and in between it keeps its last vote (hysteresis, so that a
 * phase near a threshold does not make the window flap). The window then
 * decides on the ranks' ballots at points where every rank is present
 * (ghost_agree, ghost_decide). Beyond the paper's rule, the predictor
 * prices each path per operation and weighs stalls against that price;
 * each rule below says what it is for.
 */
#include "predict.h"

static double min_d(double a, double b) { return a < b ? a : b; }

/* Whether most of the interval's operations went straight to their
 * targets. */
static int ran_direct(const ghost_interval_t *iv) { return iv->direct > iv->redirected; }

/* Whether the interval measured the direct path: most of its operations
 * went straight to their targets, and completing them (communication and
 * stalls) took at least GHOST_MIN_STALL_SHARE of it. Its stalls then
 * measure what redirection would give back. An interval that only
 * computed, with a few operations left over from the phase before, says
 * nothing about the path; it votes as a computing target does. */
static int measured_direct(const ghost_interval_t *iv)
{
    uint64_t used = iv->comm;
    if (!iv->over) /* else the stalls are in comm already */
        used += iv->stall;
    return ran_direct(iv) && (double)used >= GHOST_MIN_STALL_SHARE * (double)iv->span;
}

/* Whether the stalls are evidence that targets computed through this
 * process's completions. */
static int stalled(const ghost_interval_t *iv)
{
    return !iv->over && (double)iv->stall >= GHOST_MIN_STALL_SHARE * (double)iv->span;
}

/* Half the old estimate and half the new sample, or the sample when there
 * is no estimate yet. */
static double blend(double old, double sample) { return old == 0 ? sample : (old + sample) / 2; }

/* Folds an interval's communication time per operation into the estimate
 * of the path most of its operations took, half old, half new: phases
 * change the cost, and a stale estimate costs a wrong switch. */
static void learn(ghost_predictor_t *p, const ghost_interval_t *iv)
{
    int path = GHOST_PREDICT_REDIRECTED;
    uint64_t ops = iv->redirected;
    if (ran_direct(iv)) {
        path = GHOST_PREDICT_DIRECT;
        ops = iv->direct;
    }
    if (ops == 0)
        return;
    uint64_t spent = iv->rma > 0 ? iv->rma : iv->comm;
    p->per_op[path] = blend(p->per_op[path], (double)spent / (double)ops);
    if (path == GHOST_PREDICT_REDIRECTED) {
        p->priced_by = ops;
        p->stall_debt = 0;
    } else {
        double share = iv->over ? 0 : (double)iv->stall / (double)iv->span;
        p->stall_share = (p->stall_share + share) / 2;
    }
}

/* What redirecting ops operations costs over sending them straight to
 * their targets, in ticks, as measured so far; 0 when one of the paths has
 * not been measured (*known says which). */
static double extra(const ghost_predictor_t *p, uint64_t ops, int *known)
{
    *known = p->per_op[GHOST_PREDICT_DIRECT] != 0 && p->per_op[GHOST_PREDICT_REDIRECTED] != 0;
    if (!*known)
        return 0;
    return (p->per_op[GHOST_PREDICT_REDIRECTED] - p->per_op[GHOST_PREDICT_DIRECT]) * (double)ops;
}

/* Whether a redirected interval paid more for its path than the stalls of
 * the recent direct intervals, at their share of this one, would have
 * cost it: then the direct path is worth another look. Below
 * GHOST_MIN_STALL_SHARE of the interval the difference is noise. The
 * estimate is capped by the interval's own communication time, which it
 * cannot have exceeded: a computing interval with a few operations left
 * over from a phase whose operations queued for the ghost must not read as
 * one that paid that phase's price per operation. */
static int costs_more(const ghost_predictor_t *p, const ghost_interval_t *iv)
{
    int known;
    double cost = min_d(extra(p, iv->redirected, &known), (double)iv->comm);
    return known && cost >= GHOST_MIN_STALL_SHARE * (double)iv->span && cost > p->stall_share * (double)iv->span;
}

/* Whether redirecting a stalled direct interval's operations would have
 * given back more than it costs: its stalls against the extra time per
 * operation that redirection has shown. Before redirection has been
 * measured, switching to it is a bet on a cost nobody knows, so it takes a
 * phase of stalls, two stalled intervals in a row, not a moment: NWChem's
 * first interval stalls for a quarter of its time on every run (one rank
 * waits while the other starts up), and the bet on it cost ethanol SCF on
 * 2 fake nodes 40% of its run. */
static int pays(const ghost_predictor_t *p, const ghost_interval_t *iv)
{
    int known;
    double cost = extra(p, iv->direct, &known);
    if (!known)
        return p->stalled_last;
    return (double)iv->stall > cost;
}

/* Starts with redirection off: the ghost stays off the critical path until
 * a measurement says that it would help. (Starting on cost NWChem on 2 fake
 * nodes its first second at 2.5 times the direct path's time per
 * operation, before its first implicit point voted off.) A vote that
 * nothing measured weighs the floor. */
void ghost_predictor_init(ghost_predictor_t *p, double low, double high)
{
    *p = (ghost_predictor_t){.low = low, .high = high, .weight = GHOST_MIN_STALL_SHARE};
}

/* Halves the extra cost per operation that redirection is thought to have,
 * after a stalled direct interval that it kept off. The estimate comes from
 * the last phase that ran redirected, which may not be this one: one
 * interval in which the ghost was slow to be scheduled (4.5 ms for 3
 * operations, on a machine whose cores are shared) kept the multiphase
 * benchmark's computation phase direct for all of its steps, since only
 * redirecting again could correct it. A phase of stalls thus retries
 * redirection after a few intervals, and what it measures there becomes
 * the estimate.
 *
 * How fast depends on the evidence behind the estimate. One priced by fewer
 * than GHOST_TRUSTED_OPS operations is halved at every such interval. One
 * priced by more is a measurement, not an accident: it is halved only once
 * the stalls it kept direct since then have cost as much as redirecting
 * this interval's operations would, by that estimate (a retry is then no
 * dearer than what waiting has lost). NWChem's ethanol SCF on 2 fake nodes
 * stalls for 0.1-3 ms in many of its 2-10 ms intervals between Global
 * Arrays syncs, while a step it runs redirected takes 8-35 ms; halving at
 * each of those stalls retried redirection every few syncs. */
static void doubt(ghost_predictor_t *p, const ghost_interval_t *iv)
{
    int known;
    double cost = extra(p, iv->direct, &known); /* a doubted interval ran direct: iv->direct > 0 */
    if (!known || cost <= 0)
        return;
    if (p->priced_by >= GHOST_TRUSTED_OPS) {
        p->stall_debt += (double)iv->stall;
        if (p->stall_debt < cost)
            return;
        p->stall_debt = 0;
    }
    double d = p->per_op[GHOST_PREDICT_DIRECT];
    p->per_op[GHOST_PREDICT_REDIRECTED] = d + (p->per_op[GHOST_PREDICT_REDIRECTED] - d) / 2;
}

/* What the vote just cast has at stake over the interval, as a share of
 * it: what redirecting gives back (the interval's stalls, or while
 * redirected those that the direct path last showed) against what it costs
 * (extra, where both paths have been measured), in the vote's favour. A
 * vote whose favour nobody measured (a computing target's vote for its
 * origins' ghost, a cost not yet known) weighs GHOST_MIN_STALL_SHARE, the
 * floor below which a difference is noise: such votes then decide by their
 * count, as in the paper.
 *
 * The weights let the ranks that gain outvote those that pay less. In the
 * multiphase benchmark's computation phase, a rank that computes in 2 ms
 * chunks pays for each operation that it redirects about 9% of its
 * interval, while its neighbour, stalled on those chunks, gets back a
 * third of its own; by count, a tie of two that went off made the window
 * flip at every step. */
static double stake(const ghost_predictor_t *p, const ghost_interval_t *iv)
{
    double gain = 0, cost;
    int known;
    if (ran_direct(iv)) {
        if (stalled(iv))
            gain = (double)iv->stall;
        cost = extra(p, iv->direct, &known);
    } else {
        gain = p->stall_share * (double)iv->span;
        cost = min_d(extra(p, iv->redirected, &known), (double)iv->comm);
    }
    double favour = (gain - cost) / (double)iv->span;
    if (!p->on)
        favour = -favour;
    if (!known || favour < GHOST_MIN_STALL_SHARE)
        return GHOST_MIN_STALL_SHARE;
    return min_d(favour, 1);
}

/* The paper's rule, off above high, on below low and the last vote in
 * between, holds for intervals whose operations went through the ghosts
 * and for those that hardly communicated (a target that computes votes for
 * the ghost that its origins need). An interval that measured the direct
 * path (measured_direct) is read by what it measured: without stalls
 * (stalled) it votes off whatever its CR, since its completions did not
 * wait for anybody and redirection could only add the ghost's hop (a low CR
 * there is computation that nobody waited on, and voting on for it made
 * NWChem flip on and off at every Global Arrays sync, each time paying the
 * ghost path's cost for a phase). With stalls it votes off too once
 * redirection has shown a cost per operation that, over the interval's
 * operations, exceeds the stalls (pays): NWChem's rare intervals that stall
 * for 5-10% still switched on for a phase at 20 times the direct path's
 * cost per operation. Otherwise the rule above decides, on a CR that leaves
 * the stalls out.
 *
 * The same weighing ends a redirected phase that no longer pays: while
 * redirected, stalls cannot be seen, so an interval whose extra cost per
 * operation exceeds the stall share that the direct path last showed votes
 * off (costs_more), whatever its CR. Without it, NWChem switched on for a
 * start-up interval that stalled for a quarter of its time and then stayed
 * on for the whole run with a CR of 0.44, inside the band, at 12 times the
 * direct path's cost per operation. */
int ghost_predictor_observe(ghost_predictor_t *p, const ghost_interval_t *iv)
{
    if (iv->span == 0)
        return p->on;
    learn(p, iv);
    double cr = (double)iv->comm / (double)iv->span;
    p->last = cr;
    int measured = measured_direct(iv), stalls = stalled(iv);
    if (cr > p->high)
        p->on = 0;
    else if (measured && !(stalls && pays(p, iv)))
        p->on = 0;
    else if (!ran_direct(iv) && costs_more(p, iv))
        p->on = 0;
    else if (cr < p->low)
        p->on = 1;
    if (measured && stalls && !p->on && (double)iv->stall >= GHOST_DOUBT_STALL_SHARE * (double)iv->span)
        doubt(p, iv);
    p->weight = stake(p, iv);
    p->stalled_last = measured && stalls; /* after pays, which reads the interval before */
    return p->on;
}

/* Its weight in thousandths of the interval that cast it, positive for
 * redirection on and negative for off, never 0. */
int ghost_ballot_of(int on, double weight)
{
    int b = (int)(weight * GHOST_BALLOT_SCALE + 0.5);
    if (b < 1)
        b = 1;
    return on ? b : -b;
}

int ghost_predictor_ballot(const ghost_predictor_t *p) { return ghost_ballot_of(p->on, p->weight); }

/* On only when the weights for it outweigh those against, so a tie goes
 * off. Votes that all weigh the floor decide by their count.
 *
 * Off is right at a tie where it matters. When one rank stalls on a
 * neighbour that computes and the other completes promptly before
 * redirection has been measured, both votes weigh the floor, and
 * redirection would be a cost to both against a gain for one: NWChem on 2
 * fake nodes starts so on every run (one rank waits while the other starts
 * up), and a tie that went on, as it did when the ranks' mean CR broke
 * ties, cost ethanol DFT a tenth of its run in a phase at the ghost path's
 * cost. Once both paths are measured, the weights tell a gain from a cost:
 * at the first point of a communication phase that runs redirected, the
 * rank slowed down by the ghost outweighs the one that got there quickly
 * and still votes on from the computation before. */
int ghost_agree(int ballots) { return ballots > 0; }

/* The state changes only when the sum of the ballots goes against it by at
 * least GHOST_SWITCH_MARGIN, so that a near tie keeps what the window has.
 * Each switch costs a step on the path that the next point corrects, and
 * the ranks' weights are measurements, with noise: in the multiphase
 * benchmark's computation phase on the 2-core VM, the rank stalled on its
 * computing neighbour weighed 175 to 326 for redirection and the neighbour
 * 97 to 190 against it, and at a sum of -11 the window switched off, to
 * switch on again at the next step
 * (bench/results/2026-11-27T0747Z-multiphase-entry-step-trace.md). A single
 * rank's vote at the floor still switches its window, and a tie of two
 * floor votes keeps the state, off where cores are shared (the state
 * presumed at allocation), as ghost_agree's tie did. */
int ghost_decide(int ballots, int current)
{
    if (current)
        return ballots > -GHOST_SWITCH_MARGIN;
    return ballots >= GHOST_SWITCH_MARGIN;
}
