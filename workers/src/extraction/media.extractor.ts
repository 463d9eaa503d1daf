import { parseFile, TrackType, type IAudioMetadata, type ITrackInfo } from 'music-metadata';
import { cleanString, compact, toJsonValue, type JsonValue } from './json-values.ts';

export type MediaKind = 'audio' | 'video';

/**
 * The audio or video section from music-metadata, which reads the container's headers with
 * random access. Computing the duration of some files (MP3 without a Xing header) means
 * reading them to the end, so it is asked for only within `maxBytes`; beyond it the
 * duration is the one the headers state, if any.
 */
export async function extractMedia(filePath: string, sizeBytes: number, maxBytes: number, kind: MediaKind): Promise<Record<string, JsonValue>> {
  const metadata = await parseFile(filePath, { duration: sizeBytes <= maxBytes, skipCovers: true });
  const { format } = metadata;
  const audioTrack = format.trackInfo.find((track) => track.type === TrackType.audio || track.audio !== undefined);
  const shared = {
    duration_seconds: format.duration !== undefined && Number.isFinite(format.duration) ? Math.round(format.duration * 1000) / 1000 : undefined,
    container: text(format.container),
    bitrate: rounded(format.bitrate),
  };
  if (kind === 'audio') {
    return compact({
      ...shared,
      codec: text(format.codec),
      sample_rate: rounded(format.sampleRate),
      channels: rounded(format.numberOfChannels),
      bits_per_sample: rounded(format.bitsPerSample),
      lossless: format.lossless,
      tags: tags(metadata),
    });
  }
  const videoTrack = format.trackInfo.find((track) => track.type === TrackType.video || track.video !== undefined);
  return compact({
    ...shared,
    codec: text(videoTrack?.codecName),
    width: rounded(videoTrack?.video?.pixelWidth),
    height: rounded(videoTrack?.video?.pixelHeight),
    frame_rate: rounded(videoTrack?.video?.frameRate, 1000),
    audio: audioSection(format, audioTrack),
    tags: tags(metadata),
  });
}

function audioSection(format: IAudioMetadata['format'], track: ITrackInfo | undefined): JsonValue | undefined {
  const section = compact({
    codec: text(track?.codecName ?? format.codec),
    sample_rate: rounded(track?.audio?.samplingFrequency ?? format.sampleRate),
    channels: rounded(track?.audio?.channels ?? format.numberOfChannels),
  });
  return Object.keys(section).length > 0 ? section : undefined;
}

function tags(metadata: IAudioMetadata): JsonValue | undefined {
  const { common } = metadata;
  const section = compact({
    title: text(common.title),
    artist: text(common.artist),
    album: text(common.album),
    year: rounded(common.year),
    genre: toJsonValue(common.genre),
  });
  return Object.keys(section).length > 0 ? section : undefined;
}

function text(value: string | undefined): string | undefined {
  return value === undefined ? undefined : cleanString(value, 256);
}

function rounded(value: number | undefined, scale = 1): number | undefined {
  return value !== undefined && Number.isFinite(value) ? Math.round(value * scale) / scale : undefined;
}
