/**
 * Realistic-looking assets for `npm run bench -- assets`: record types, titles, aliases,
 * tags and metadata from small vocabularies, drawn from a seeded generator so that every
 * seeding of the same size holds the same data (and the filters hit the same share).
 */

/** mulberry32: a small, fast, seeded generator of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;

export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
export const between = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1));
/** Skewed towards the first items: index = n · r^power. */
export const skewed = <T>(random: Random, items: readonly T[], power = 2): T => items[Math.floor(random() ** power * items.length)] as T;

/** Record types with their shares (they add up to 1). */
export const recordTypes: readonly (readonly [string, number])[] = [
  ['dataset', 0.4],
  ['image', 0.2],
  ['document', 0.15],
  ['software', 0.1],
  ['sample', 0.08],
  ['notebook', 0.04],
  ['model', 0.03],
];

function recordType(random: Random): string {
  let r = random();
  for (const [type, share] of recordTypes) {
    if (r < share) return type;
    r -= share;
  }
  return 'dataset';
}

export const adjectives = [
  'Coastal', 'Alpine', 'Arctic', 'Tropical', 'Urban', 'Rural', 'Deep', 'Shallow', 'Annual', 'Seasonal',
  'Historic', 'Modern', 'Regional', 'Global', 'Northern', 'Southern', 'Eastern', 'Western', 'Central', 'Marine',
  'Freshwater', 'Volcanic', 'Glacial', 'Desert', 'Boreal', 'Temperate', 'Subsurface', 'Atmospheric', 'Microbial', 'Genomic',
  'Clinical', 'Longitudinal', 'Synthetic', 'Calibrated', 'Raw', 'Processed', 'Archived', 'Preliminary', 'Final', 'Pilot',
];
export const topics = [
  'sediment', 'plankton', 'soil', 'aerosol', 'ice core', 'river flow', 'forest canopy', 'coral reef', 'wetland', 'groundwater',
  'bird migration', 'seismic', 'rainfall', 'snowpack', 'permafrost', 'tidal', 'salinity', 'nutrient', 'pollen', 'lichen',
  'bacterial', 'fungal', 'viral', 'protein', 'gene expression', 'methylation', 'metabolite', 'cell imaging', 'tissue', 'blood panel',
  'survey', 'census', 'traffic', 'energy use', 'air quality', 'noise', 'land use', 'crop yield', 'livestock', 'fishery',
  'telescope', 'spectra', 'magnetometer', 'radar', 'lidar', 'sonar', 'drone', 'satellite', 'weather station', 'buoy',
  'archive scan', 'manuscript', 'interview', 'field notes', 'photograph', 'map', 'model run', 'simulation', 'benchmark', 'calibration',
];
const nouns = [
  'measurements', 'observations', 'samples', 'records', 'time series', 'images', 'profiles', 'transects', 'counts', 'readings',
  'inventory', 'catalogue', 'collection', 'campaign', 'study', 'analysis', 'report', 'dataset', 'export', 'snapshot',
  'mosaic', 'scans', 'logs', 'tables', 'results', 'annotations', 'labels', 'cohort', 'panel', 'baseline',
];
const descriptionWords = ['collected', 'during', 'the', 'field', 'season', 'with', 'standard', 'protocol', 'quality', 'checked', 'by', 'two', 'reviewers', 'and', 'stored', 'as', 'open', 'formats', 'for', 'reuse'];

/** 300 tags: 60 topic words, and each with four qualifiers. */
export const tagVocabulary: readonly string[] = (() => {
  const words = topics.map((t) => t.replace(/ /g, '-'));
  return [...words, ...['raw', 'qc', 'public', 'v2'].flatMap((q) => words.map((w) => `${w}-${q}`))];
})();

export const instruments: readonly string[] = Array.from({ length: 80 }, (_, i) => `INST-${String(i + 1).padStart(3, '0')}`);
const licenses = ['CC-BY-4.0', 'CC0-1.0', 'CC-BY-SA-4.0', 'MIT', 'Apache-2.0', 'proprietary'];
const formats = ['csv', 'parquet', 'netcdf', 'hdf5', 'tiff', 'png', 'pdf', 'json', 'fastq', 'bam'];
const languages = ['en', 'de', 'fr', 'es', 'it', 'nl', 'sv', 'fi'];
const sites = ['north-station', 'south-station', 'ridge', 'harbour', 'lake-a', 'lake-b', 'valley', 'plateau', 'estuary', 'lab-3'];
const keywords = ['baseline', 'repeat', 'control', 'treatment', 'night', 'day', 'winter', 'summer', 'calibrated', 'flagged', 'gap-filled', 'interpolated'];

export type GeneratedDetails = {
  readonly title: string;
  readonly alias: string;
  readonly description: string;
  readonly recordType: string;
  readonly tags: string[];
  readonly metadata: Record<string, unknown>;
};

/**
 * One asset's fields. Metadata has 5 to 10 keys: `size` (an integer 0..1000, for the
 * numeric post-filter), `instrument` on 80 % of assets (80 values: each value ~1 %), then
 * others from a pool of strings, numbers, a nested object and a list.
 */
export function assetDetails(random: Random, n: number): GeneratedDetails {
  const topic = skewed(random, topics, 1.5);
  const title = `${pick(random, adjectives)} ${topic} ${pick(random, nouns)} ${n % 9973}`;
  const alias = random() < 0.3 ? '' : `${topic.replace(/ /g, '-')}-${n.toString(36)}`;
  const tagCount = between(random, 0, 6);
  const tags = new Set<string>();
  for (let i = 0; i < tagCount; i += 1) tags.add(skewed(random, tagVocabulary, 2));

  const metadata: Record<string, unknown> = { size: between(random, 0, 1000) };
  if (random() < 0.8) metadata['instrument'] = pick(random, instruments);
  const optional: (() => [string, unknown])[] = [
    () => ['license', pick(random, licenses)],
    () => ['format', pick(random, formats)],
    () => ['language', pick(random, languages)],
    () => ['year', between(random, 1990, 2026)],
    () => ['resolution', Math.round(random() * 10000) / 100],
    () => ['temperature', Math.round((random() * 60 - 20) * 10) / 10],
    () => ['checksum', `sha256:${Math.floor(random() * 2 ** 48).toString(16).padStart(12, '0')}`],
    () => ['version', `${between(random, 0, 5)}.${between(random, 0, 20)}`],
    () => ['location', { site: pick(random, sites), lat: Math.round((random() * 180 - 90) * 1e4) / 1e4, lon: Math.round((random() * 360 - 180) * 1e4) / 1e4, depth_m: between(random, 0, 4000) }],
    () => ['keywords', Array.from({ length: between(random, 1, 4) }, () => pick(random, keywords))],
    () => ['reviewed', random() < 0.5],
    () => ['contact', `lab${between(random, 1, 400)}@example.org`],
  ];
  const want = between(random, 5, 10);
  while (Object.keys(metadata).length < want) {
    const [key, value] = (optional[Math.floor(random() * optional.length)] as () => [string, unknown])();
    if (!(key in metadata)) metadata[key] = value;
  }
  const words = Array.from({ length: between(random, 6, 16) }, () => pick(random, descriptionWords));
  return { title, alias, description: `${topic[0]?.toUpperCase()}${topic.slice(1)} ${words.join(' ')}.`, recordType: recordType(random), tags: [...tags], metadata };
}
