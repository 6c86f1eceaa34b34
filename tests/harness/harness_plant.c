// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * harness_plant.ko: each parameter plants one kind of problem that the
 * test harness (scripts/vm.sh, scripts/vm-init.sh) claims to catch. make
 * check loads it with one parameter per boot and requires the run to fail
 * for that reason. Nothing here is part of xcma.
 *
 * Its name does not start with xcma_, so the harness unloads it only when
 * nothing holds it (refcnt 0): a task parked in D state keeps it loaded.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/console.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

static unsigned int warn;
module_param(warn, uint, 0444);
MODULE_PARM_DESC(warn, "WARN this many times");

static bool oops;
module_param(oops, bool, 0444);
MODULE_PARM_DESC(oops, "dereference NULL in module init");

static bool lockdep;
module_param(lockdep, bool, 0444);
MODULE_PARM_DESC(lockdep, "take two mutexes in both orders (AB-BA)");

static bool kasan;
module_param(kasan, bool, 0444);
MODULE_PARM_DESC(kasan, "read one byte past a kmalloc object");

static unsigned int leak;
module_param(leak, uint, 0444);
MODULE_PARM_DESC(leak, "kmalloc this many objects and lose them");

static unsigned int ubsan_shift;
module_param(ubsan_shift, uint, 0444);
MODULE_PARM_DESC(ubsan_shift, "shift an int by this many bits (32+: UB)");

static unsigned int hang_secs;
module_param(hang_secs, uint, 0444);
MODULE_PARM_DESC(hang_secs, "a kthread sleeps uninterruptibly this long");

static bool dstate;
module_param(dstate, bool, 0444);
MODULE_PARM_DESC(dstate, "a kthread stays in D state until power-off");

static unsigned int exit_block_secs;
module_param(exit_block_secs, uint, 0444);
MODULE_PARM_DESC(exit_block_secs, "module exit sleeps uninterruptibly this long");

static unsigned int spin_secs;
module_param(spin_secs, uint, 0444);
MODULE_PARM_DESC(spin_secs, "a kthread on another CPU spins this long with preemption off");

static bool rcu_exp_stall;
module_param(rcu_exp_stall, bool, 0444);
MODULE_PARM_DESC(rcu_exp_stall, "module init waits for an expedited RCU grace period the spinning kthread (spin_secs) holds up");

static unsigned int printk_flood;
module_param(printk_flood, uint, 0444);
MODULE_PARM_DESC(printk_flood, "print this many lines with the console locked, more than the ring buffer holds");

static DEFINE_MUTEX(plant_a);
static DEFINE_MUTEX(plant_b);

static void plant_lock_inversion(void)
{
	mutex_lock(&plant_a);
	mutex_lock(&plant_b);
	mutex_unlock(&plant_b);
	mutex_unlock(&plant_a);

	mutex_lock(&plant_b);
	mutex_lock(&plant_a);
	mutex_unlock(&plant_a);
	mutex_unlock(&plant_b);
}

static void plant_out_of_bounds(void)
{
	char *p = kmalloc(8, GFP_KERNEL);
	size_t i = 8;

	if (!p)
		return;
	OPTIMIZER_HIDE_VAR(i);
	pr_info("harness_plant: read %d\n", READ_ONCE(p[i]));
	kfree(p);
}

static void plant_leaks(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		void *p = kmalloc(96, GFP_KERNEL);

		OPTIMIZER_HIDE_VAR(p);
		if (p)
			memset(p, 0x5a, 96);
	}
}

static int sleeper(void *arg)
{
	unsigned long secs = (unsigned long)arg;

	if (!secs) {
		/* until power-off: holding the module keeps rmmod away */
		for (;;)
			msleep(60 * 1000);
	}
	msleep(secs * 1000);
	module_put_and_kthread_exit(0);
}

static int start_sleeper(const char *name, unsigned long secs)
{
	struct task_struct *t;

	__module_get(THIS_MODULE);
	t = kthread_run(sleeper, (void *)secs, "%s", name);
	if (IS_ERR(t)) {
		module_put(THIS_MODULE);
		return PTR_ERR(t);
	}
	return 0;
}

static DECLARE_COMPLETION(plant_spinning);

static int spinner(void *arg)
{
	unsigned long ms = (unsigned long)arg * MSEC_PER_SEC, i;

	preempt_disable();
	/* which CPU, for a plant the detector missed (once, on a busy host) */
	pr_info("harness_plant: spinning on CPU %d for %lu s\n",
		smp_processor_id(), (unsigned long)arg);
	complete(&plant_spinning);
	for (i = 0; i < ms; i++)
		mdelay(1);
	preempt_enable();
	module_put_and_kthread_exit(0);
}

/*
 * A kthread that spins on a CPU other than this one: the soft lockup
 * detector sees that CPU stuck, and a grace period waits for it (a
 * quiescent state needs preemption back on).
 */
static int start_spinner(unsigned long secs)
{
	unsigned int cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	struct task_struct *t;

	if (cpu >= nr_cpu_ids)
		cpu = raw_smp_processor_id();
	__module_get(THIS_MODULE);
	t = kthread_create(spinner, (void *)secs, "plant_spin");
	if (IS_ERR(t)) {
		module_put(THIS_MODULE);
		return PTR_ERR(t);
	}
	kthread_bind(t, cpu);
	wake_up_process(t);
	wait_for_completion(&plant_spinning);
	if (rcu_exp_stall)
		synchronize_rcu_expedited();
	return 0;
}

/*
 * printk only stores while another holds the console: the unlock prints
 * what the ring buffer still has, and says how many it lost.
 */
static void plant_printk_flood(unsigned int n)
{
	unsigned int i;

	console_lock();
	for (i = 0; i < n; i++)
		pr_info("harness_plant: line %u of %u, printed with the console locked\n",
			i + 1, n);
	console_unlock();
}

static int __init plant_init(void)
{
	unsigned int i;
	int v = 1;

	for (i = 0; i < warn; i++)
		WARN(1, "harness_plant: planted warning %u of %u\n", i + 1, warn);
	if (oops) {
		int *p = NULL;

		OPTIMIZER_HIDE_VAR(p);
		pr_info("harness_plant: read %d\n", READ_ONCE(*p));
	}
	if (lockdep)
		plant_lock_inversion();
	if (kasan)
		plant_out_of_bounds();
	plant_leaks(leak);
	if (ubsan_shift) {
		v <<= ubsan_shift;
		pr_info("harness_plant: 1 << %u = %d\n", ubsan_shift, v);
	}
	if (printk_flood)
		plant_printk_flood(printk_flood);
	if (spin_secs)
		return start_spinner(spin_secs);
	if (hang_secs)
		return start_sleeper("plant_hang", hang_secs);
	if (dstate)
		return start_sleeper("plant_dstate", 0);
	return 0;
}

static void __exit plant_exit(void)
{
	if (exit_block_secs)
		msleep(exit_block_secs * 1000);
}

#if IS_ENABLED(CONFIG_KUNIT)
static bool kunit_crash;
module_param(kunit_crash, bool, 0444);
MODULE_PARM_DESC(kunit_crash, "the second of three KUnit cases oopses");

static void first_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1, 1);
}

static void second_may_crash(struct kunit *test)
{
	int *p = NULL;

	OPTIMIZER_HIDE_VAR(p);
	if (kunit_crash)
		KUNIT_EXPECT_EQ(test, READ_ONCE(*p), 0);
}

static void third_never_runs_after_a_crash(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 3, 3);
}

static struct kunit_case plant_cases[] = {
	KUNIT_CASE(first_passes),
	KUNIT_CASE(second_may_crash),
	KUNIT_CASE(third_never_runs_after_a_crash),
	{}
};

static struct kunit_suite plant_suite = {
	.name = "harness_plant",
	.test_cases = plant_cases,
};

kunit_test_suite(plant_suite);
#endif

module_init(plant_init);
module_exit(plant_exit);
MODULE_DESCRIPTION("Plants kernel reports for xcma's harness self-tests");
MODULE_LICENSE("Dual BSD/GPL");
