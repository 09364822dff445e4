/* Deterministic test signals for the opus benchmark (tests/bench/programs/opus.sh), written as
 * raw 16-bit little-endian PCM on stdout:
 *
 *   pcmgen speech RATE SECONDS SEED   mono speech-like signal: a glottal pulse train with a
 *                                     gliding pitch through vowel formants, unvoiced noise
 *                                     bursts (fricatives) and pauses
 *   pcmgen music RATE SECONDS SEED    stereo music-like signal: panned harmonic notes with
 *                                     envelopes over a bass line, noise drums, a chirp
 *
 * All randomness comes from a fixed-seed 32-bit LCG, so the files are the same on every run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long lcg_state;
static unsigned lcg(void) {
  lcg_state = (lcg_state * 6364136223846793005ULL + 1442695040888963407ULL);
  return (unsigned)(lcg_state >> 33);
}
static double uniform(void) { return lcg() / 2147483648.0; } /* [0, 1) */
static double noise(void) { return 2.0 * uniform() - 1.0; }

static void put(double v) {
  long s = lrint(v);
  if (s > 32767) s = 32767;
  if (s < -32768) s = -32768;
  putchar((int)(s & 0xff));
  putchar((int)((s >> 8) & 0xff));
}

/* Two-pole resonator (one formant). */
struct reso { double a1, a2, g, y1, y2; };
static void reso_set(struct reso *r, double f, double bw, double rate) {
  double rad = exp(-M_PI * bw / rate);
  r->a1 = 2.0 * rad * cos(2.0 * M_PI * f / rate);
  r->a2 = -rad * rad;
  r->g = 1.0 - rad;
}
static double reso_run(struct reso *r, double x) {
  double y = r->g * x + r->a1 * r->y1 + r->a2 * r->y2;
  r->y2 = r->y1;
  r->y1 = y;
  return y;
}

static void speech(int rate, double seconds) {
  static const double vowels[][3] = { /* F1 F2 F3, Hz */
    {730, 1090, 2440}, {530, 1840, 2480}, {270, 2290, 3010}, {570, 840, 2410},
    {300, 870, 2240}, {660, 1720, 2410}, {490, 1350, 1690}};
  long n = (long)(seconds * rate), i = 0;
  struct reso f[3];
  double phase = 0, f0 = 120, hp = 0, prev = 0;
  memset(f, 0, sizeof f);
  while (i < n) {
    /* One segment: voiced (vowel), unvoiced (fricative) or silence. */
    unsigned kind = lcg() % 10;
    long len = (long)((0.06 + 0.25 * uniform()) * rate);
    const double *v = vowels[lcg() % 7];
    double f0_start = 90 + 130 * uniform(), f0_end = 90 + 130 * uniform();
    double level = 0.3 + 0.7 * uniform();
    int k;
    for (k = 0; k < 3; k++) reso_set(&f[k], v[k] * (rate < 16000 && k == 2 ? 0.8 : 1.0),
                                     60 + 40 * k, rate);
    for (long j = 0; j < len && i < n; j++, i++) {
      double t = (double)j / len, x = 0, env = sin(M_PI * t);
      if (kind < 6) {          /* voiced */
        f0 = f0_start + (f0_end - f0_start) * t;
        phase += f0 / rate;
        if (phase >= 1.0) phase -= 1.0;
        x = (phase < 0.4 ? sin(M_PI * phase / 0.4) : 0) - 0.25 + 0.02 * noise();
        x = 3000 * level * env * (reso_run(&f[0], x) * 6 + reso_run(&f[1], x) * 3 +
                                  reso_run(&f[2], x) * 1.5);
      } else if (kind < 8) {   /* fricative: high-passed noise */
        double w = noise();
        hp = w - prev;
        prev = w;
        x = 2500 * level * env * hp;
      } else {                 /* pause with a little room noise */
        x = 20 * noise();
      }
      put(x);
    }
  }
}

static void music(int rate, double seconds) {
  static const int scale[] = {0, 2, 4, 7, 9, 12, 14, 16, 19, 21};
  enum { VOICES = 6 };
  struct { double freq, amp, pan, age, decay, bright; } voice[VOICES];
  long n = (long)(seconds * rate), beat = rate / 4; /* 16th notes at 60 bpm quarter = 1 s */
  double drum = 0, drum_decay = 0, bass_phase = 0, bass_freq = 55, chirp_phase = 0, lp = 0;
  int next = 0;
  memset(voice, 0, sizeof voice);
  for (long i = 0; i < n; i++) {
    if (i % beat == 0) {
      long b = i / beat;
      if (lcg() % 3 != 0) { /* a new note, most beats */
        int v = next++ % VOICES;
        voice[v].freq = 220.0 * pow(2.0, scale[lcg() % 10] / 12.0) * (1 << (lcg() % 2));
        voice[v].amp = 2500 + 2500 * uniform();
        voice[v].pan = uniform();
        voice[v].age = 0;
        voice[v].decay = 1.5 + 4 * uniform();
        voice[v].bright = 0.3 + 0.6 * uniform();
      }
      if (b % 4 == 0) bass_freq = 55.0 * pow(2.0, scale[lcg() % 5] / 12.0);
      if (b % 4 == 0 || lcg() % 5 == 0) { drum = 9000 * (0.5 + 0.5 * uniform()); drum_decay = 20 + 30 * uniform(); }
    }
    double t = (double)i / rate, l = 0, r = 0;
    for (int v = 0; v < VOICES; v++) {
      if (voice[v].amp == 0) continue;
      double env = exp(-voice[v].decay * voice[v].age) * (voice[v].age < 0.01 ? voice[v].age / 0.01 : 1);
      double s = 0, h = 1;
      for (int k = 1; k <= 6; k++, h *= voice[v].bright)
        s += h * sin(2 * M_PI * voice[v].freq * k * voice[v].age);
      s *= voice[v].amp * env;
      l += s * (1 - voice[v].pan);
      r += s * voice[v].pan;
      voice[v].age += 1.0 / rate;
    }
    bass_phase += bass_freq / rate;
    if (bass_phase >= 1) bass_phase -= 1;
    double bass = 3000 * (2 * bass_phase - 1);
    lp += 0.05 * (bass - lp);
    double d = drum * noise();
    drum *= exp(-drum_decay / rate);
    /* A slow chirp, 200 Hz to 8 kHz over each 4 s, quiet, in the right channel. */
    double ct = fmod(t, 4.0) / 4.0;
    chirp_phase += (200 * pow(40.0, ct)) / rate;
    chirp_phase -= floor(chirp_phase);
    double c = 600 * sin(2 * M_PI * chirp_phase);
    put(l + lp + 0.7 * d);
    put(r + lp + 0.5 * d + c);
  }
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: pcmgen speech|music RATE SECONDS SEED\n");
    return 2;
  }
  int rate = atoi(argv[2]);
  double seconds = atof(argv[3]);
  lcg_state = strtoull(argv[4], NULL, 10);
  if (strcmp(argv[1], "speech") == 0) speech(rate, seconds);
  else if (strcmp(argv[1], "music") == 0) music(rate, seconds);
  else return 2;
  return fflush(stdout) != 0;
}
